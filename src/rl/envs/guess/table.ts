// The shipped attribute table for `guess` (twenty questions, as in ArCHer): 120 animals × 20 yes/no
// attributes. The table is world knowledge a policy may learn; episodes draw a small candidate set
// from it. Facts are everyday ones ("bigger than a person" = heavier than an adult; "kept by people"
// = pets and farm animals; "lives in water" = mostly aquatic).

/** The yes/no attributes, with the canonical question the expert asks. */
export const ATTRIBUTES = [
  { key: 'mammal', question: 'is it a mammal?' },
  { key: 'bird', question: 'is it a bird?' },
  { key: 'fish', question: 'is it a fish?' },
  { key: 'reptile', question: 'is it a reptile?' },
  { key: 'insect', question: 'is it an insect?' },
  { key: 'fly', question: 'can it fly?' },
  { key: 'water', question: 'does it live in water?' },
  { key: 'fur', question: 'does it have fur?' },
  { key: 'meat', question: 'does it eat meat?' },
  { key: 'big', question: 'is it bigger than a person?' },
  { key: 'small', question: 'is it smaller than a cat?' },
  { key: 'pet', question: 'is it kept by people?' },
  { key: 'night', question: 'is it active at night?' },
  { key: 'eggs', question: 'does it lay eggs?' },
  { key: 'africa', question: 'does it live in africa?' },
  { key: 'pattern', question: 'does it have stripes or spots?' },
  { key: 'legs4', question: 'does it have four legs?' },
  { key: 'venom', question: 'is it venomous?' },
  { key: 'horns', question: 'does it have horns or antlers?' },
  { key: 'cold', question: 'does it live in cold places?' },
] as const;

export type AttributeKey = (typeof ATTRIBUTES)[number]['key'];

// name: the attributes that are true (all others false).
const RAW = `
cat: mammal fur meat pet night legs4
dog: mammal fur meat pet legs4
cow: mammal fur big pet legs4 horns
horse: mammal fur big pet legs4
sheep: mammal fur pet legs4 horns
goat: mammal fur pet legs4 horns
pig: mammal big pet legs4
rabbit: mammal fur pet legs4
mouse: mammal fur small pet night legs4
rat: mammal fur small night legs4
hamster: mammal fur small pet night legs4
squirrel: mammal fur small legs4
hedgehog: mammal small night legs4
bat: mammal fur fly small night
lion: mammal fur meat big africa legs4
tiger: mammal fur meat big pattern legs4
leopard: mammal fur meat africa pattern legs4 night
cheetah: mammal fur meat africa pattern legs4
jaguar: mammal fur meat big pattern legs4 night
wolf: mammal fur meat night legs4 cold
fox: mammal fur meat night legs4
polar bear: mammal fur meat big water legs4 cold
brown bear: mammal fur meat big legs4 cold
panda: mammal fur big pattern legs4
koala: mammal fur night legs4
kangaroo: mammal fur big
elephant: mammal big africa legs4
giraffe: mammal fur big africa pattern legs4
zebra: mammal fur big africa pattern legs4
hippo: mammal big water africa legs4 night
rhino: mammal big africa legs4 horns
gorilla: mammal fur big africa
chimpanzee: mammal fur africa
monkey: mammal fur africa
camel: mammal fur big pet legs4
llama: mammal fur big pet legs4
deer: mammal fur legs4 horns
moose: mammal fur big legs4 horns cold
reindeer: mammal fur big pet legs4 horns cold
buffalo: mammal fur big africa legs4 horns
antelope: mammal fur africa legs4 horns
hyena: mammal fur meat africa pattern legs4 night
meerkat: mammal fur meat small africa
otter: mammal fur meat water legs4
beaver: mammal fur water legs4 night
raccoon: mammal fur night pattern legs4
skunk: mammal fur night pattern legs4
badger: mammal fur meat night pattern legs4
mole: mammal fur small legs4
sloth: mammal fur
armadillo: mammal night legs4
platypus: mammal fur water eggs legs4 venom
dolphin: mammal meat big water
whale: mammal meat big water cold
seal: mammal fur meat big water cold
walrus: mammal meat big water cold
sea lion: mammal fur meat big water
porcupine: mammal night legs4
donkey: mammal fur big pet legs4
ferret: mammal fur meat pet legs4
chicken: bird fly pet eggs
duck: bird fly pet water eggs
goose: bird fly pet eggs
turkey: bird big pet eggs
eagle: bird fly meat eggs
owl: bird fly meat night eggs
parrot: bird fly pet eggs
penguin: bird meat water eggs cold
ostrich: bird big africa eggs
flamingo: bird fly water africa eggs
sparrow: bird fly small eggs
pigeon: bird fly small eggs
crow: bird fly eggs
swan: bird fly water eggs
peacock: bird fly pet eggs pattern
hummingbird: bird fly small eggs
woodpecker: bird fly small eggs pattern
vulture: bird fly meat africa eggs
seagull: bird fly meat eggs
canary: bird fly small pet eggs
salmon: fish meat water eggs cold
tuna: fish meat water eggs
shark: fish meat big water eggs
goldfish: fish small pet water eggs
clownfish: fish small water eggs pattern
trout: fish meat water eggs pattern cold
catfish: fish meat water night eggs
eel: fish meat water night eggs
swordfish: fish meat big water eggs
piranha: fish meat small water eggs
stingray: fish meat water eggs venom
seahorse: fish small water eggs
cod: fish meat water eggs cold
snake: reptile meat eggs
cobra: reptile meat africa eggs venom
python: reptile meat big eggs pattern
crocodile: reptile meat big water africa eggs legs4
alligator: reptile meat big water eggs legs4
turtle: reptile water eggs legs4
tortoise: reptile pet eggs legs4
lizard: reptile small eggs legs4
iguana: reptile pet eggs legs4
chameleon: reptile small africa eggs legs4
komodo dragon: reptile meat big eggs legs4 venom
gecko: reptile small pet night eggs legs4
frog: meat small water eggs legs4
toad: meat small night eggs legs4
salamander: meat small water night eggs legs4 pattern
bee: insect fly small pet eggs pattern venom
wasp: insect fly meat small eggs pattern venom
ant: insect small eggs
butterfly: insect fly small eggs pattern
mosquito: insect fly small night eggs
ladybug: insect fly small eggs pattern
grasshopper: insect fly small eggs
beetle: insect fly small eggs
dragonfly: insect fly meat small eggs
moth: insect fly small night eggs
spider: meat small night eggs venom
scorpion: meat small africa night eggs venom
crab: meat small water eggs
lobster: meat water night eggs
octopus: meat water night eggs
jellyfish: meat water venom
snail: small eggs
starfish: meat small water eggs
`;

/** One row of the table. */
export interface Item {
  name: string;
  /** Attribute values in ATTRIBUTES order. */
  facts: boolean[];
}

function parseTable(raw: string): Item[] {
  const keys = ATTRIBUTES.map((a) => a.key as string);
  return raw
    .trim()
    .split('\n')
    .map((line) => {
      const [name, rest] = line.split(':');
      const true_ = new Set(rest.trim().split(/\s+/).filter(Boolean));
      for (const k of true_) if (!keys.includes(k)) throw new Error(`guess table: unknown attribute "${k}" for ${name}`);
      return { name: name.trim(), facts: keys.map((k) => true_.has(k)) };
    });
}

/** All items, in table order. */
export const ITEMS: readonly Item[] = parseTable(RAW);

/** Index of an item by name. */
export const ITEM_INDEX: ReadonlyMap<string, number> = new Map(ITEMS.map((it, i) => [it.name, i]));

/** An item's attribute signature as a string of 0/1 (equal signatures cannot be told apart). */
export function signature(item: number): string {
  return ITEMS[item].facts.map((f) => (f ? '1' : '0')).join('');
}
