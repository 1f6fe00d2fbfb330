// The backend family's 31 function templates (ColBench backend, scaled): each names a function,
// describes it without its numbers, and hides 1–3 parameters that the agent must ask for. The
// reference code is a short expression so a small model can write it once it knows the numbers.
import type { Value } from './interp.ts';

/** A hidden parameter the collaborator knows. */
export interface Param {
  /** The word the prompt lists and questions use ("discount"). */
  name: string;
  /** Unit said after the number ("percent"), or '' for none. */
  unit: string;
  /** Values drawn uniformly. */
  values: readonly Value[];
  /** Strings a task with free values draws from instead (backend option `freeValues`); numbers need none (freeValuesOf). */
  free?: readonly string[];
  /** True when test inputs should include this value (a boundary). */
  edge?: boolean;
}

/** An argument of the function and the range tests draw it from. */
export type Arg = { name: string; lo: number; hi: number } | { name: string; choices: readonly string[] };

export interface Template {
  /** The function's name, unique per template. */
  fn: string;
  args: readonly Arg[];
  /** What the function does, without the hidden numbers. */
  description: string;
  params: readonly Param[];
  /** The reference expression for given parameter values. */
  code(p: Readonly<Record<string, Value>>): string;
}

const range = (lo: number, hi: number, step = 1): number[] => Array.from({ length: Math.floor((hi - lo) / step) + 1 }, (_, i) => lo + i * step);
const NAMES = ['ana', 'bo', 'carla', 'dev', 'eli', 'fay', 'gus', 'hana'];
/** A literal as code. */
export const lit = (v: Value): string => (typeof v === 'string' ? JSON.stringify(v) : String(v));

export const TEMPLATES: readonly Template[] = [
  {
    fn: 'final_price',
    args: [{ name: 'price', lo: 10, hi: 300 }],
    description: 'Customers get a discount in percent when the price is at least a threshold.',
    params: [
      { name: 'discount', unit: 'percent', values: range(5, 40, 5) },
      { name: 'threshold', unit: 'dollars', values: range(50, 200, 10), edge: true },
    ],
    code: (p) => `if price >= ${lit(p.threshold)} then price * (100 - ${lit(p.discount)}) / 100 else price`,
  },
  {
    fn: 'shipping_cost',
    args: [{ name: 'weight', lo: 1, hi: 50 }],
    description: 'Shipping costs a base fee plus a rate per kilogram of weight.',
    params: [
      { name: 'fee', unit: 'dollars', values: range(2, 12) },
      { name: 'rate', unit: 'dollars', values: range(1, 6) },
    ],
    code: (p) => `${lit(p.fee)} + ${lit(p.rate)} * weight`,
  },
  {
    fn: 'shipping',
    args: [{ name: 'total', lo: 5, hi: 150 }],
    description: 'Shipping is a flat fee, but free when the order total is above a limit.',
    params: [
      { name: 'fee', unit: 'dollars', values: range(3, 15) },
      { name: 'limit', unit: 'dollars', values: range(30, 100, 5), edge: true },
    ],
    code: (p) => `if total > ${lit(p.limit)} then 0 else ${lit(p.fee)}`,
  },
  {
    fn: 'convert',
    args: [{ name: 'x', lo: -50, hi: 100 }],
    description: 'Convert a reading to the new scale: multiply by a factor, then add an offset.',
    params: [
      { name: 'factor', unit: '', values: range(2, 9) },
      { name: 'offset', unit: '', values: range(10, 40, 2) },
    ],
    code: (p) => `x * ${lit(p.factor)} + ${lit(p.offset)}`,
  },
  {
    fn: 'grade',
    args: [{ name: 'score', lo: 0, hi: 100 }],
    description: 'Return "pass" when the score is at least the pass mark, else "fail".',
    params: [{ name: 'mark', unit: 'points', values: range(40, 70, 5), edge: true }],
    code: (p) => `if score >= ${lit(p.mark)} then "pass" else "fail"`,
  },
  {
    fn: 'letter',
    args: [{ name: 'score', lo: 0, hi: 100 }],
    description: 'Return "A" at or above the top mark, "B" at or above the middle mark, else "C".',
    params: [
      { name: 'top', unit: 'points', values: range(80, 95, 5), edge: true },
      { name: 'middle', unit: 'points', values: range(50, 75, 5), edge: true },
    ],
    code: (p) => `if score >= ${lit(p.top)} then "A" else if score >= ${lit(p.middle)} then "B" else "C"`,
  },
  {
    fn: 'with_tax',
    args: [{ name: 'amount', lo: 1, hi: 500 }],
    description: 'Add a sales tax in percent to the amount.',
    params: [{ name: 'tax', unit: 'percent', values: range(5, 25) }],
    code: (p) => `amount * (100 + ${lit(p.tax)}) / 100`,
  },
  {
    fn: 'tip',
    args: [{ name: 'bill', lo: 5, hi: 200 }],
    description: 'The tip is a percent of the bill, but at least a minimum.',
    params: [
      { name: 'percent', unit: 'percent', values: range(10, 25) },
      { name: 'minimum', unit: 'dollars', values: range(2, 10) },
    ],
    code: (p) => `max(bill * ${lit(p.percent)} / 100, ${lit(p.minimum)})`,
  },
  {
    fn: 'eligible',
    args: [{ name: 'age', lo: 10, hi: 90 }],
    description: 'A person is eligible when their age is between a youngest and an oldest age, inclusive.',
    params: [
      { name: 'youngest', unit: 'years', values: range(16, 21), edge: true },
      { name: 'oldest', unit: 'years', values: range(60, 70), edge: true },
    ],
    code: (p) => `age >= ${lit(p.youngest)} and age <= ${lit(p.oldest)}`,
  },
  {
    fn: 'can_borrow',
    args: [
      { name: 'income', lo: 0, hi: 100 },
      { name: 'debt', lo: 0, hi: 50 },
    ],
    description: 'A loan is allowed when income is at least a minimum and debt is below a limit.',
    params: [
      { name: 'minimum', unit: 'thousand', values: range(20, 60, 5), edge: true },
      { name: 'limit', unit: 'thousand', values: range(10, 30, 5) },
    ],
    code: (p) => `income >= ${lit(p.minimum)} and debt < ${lit(p.limit)}`,
  },
  {
    fn: 'parking_fee',
    args: [{ name: 'hours', lo: 0, hi: 12 }],
    description: 'Parking is free for the first free hours, then costs a rate per extra hour.',
    params: [
      { name: 'free', unit: 'hours', values: range(1, 3), edge: true },
      { name: 'rate', unit: 'dollars', values: range(2, 6) },
    ],
    code: (p) => `if hours <= ${lit(p.free)} then 0 else (hours - ${lit(p.free)}) * ${lit(p.rate)}`,
  },
  {
    fn: 'pay',
    args: [{ name: 'hours', lo: 10, hi: 60 }],
    description: 'Pay a wage per hour, and double the wage for hours over a limit.',
    params: [
      { name: 'wage', unit: 'dollars', values: range(10, 30) },
      { name: 'limit', unit: 'hours', values: range(35, 45), edge: true },
    ],
    code: (p) =>
      `if hours > ${lit(p.limit)} then ${lit(p.limit)} * ${lit(p.wage)} + (hours - ${lit(p.limit)}) * ${lit(p.wage)} * 2 else hours * ${lit(p.wage)}`,
  },
  {
    fn: 'game_score',
    args: [{ name: 'points', lo: 0, hi: 100 }],
    description: 'The score is the points times a multiplier plus a bonus.',
    params: [
      { name: 'multiplier', unit: '', values: range(2, 10) },
      { name: 'bonus', unit: 'points', values: range(5, 50, 5) },
    ],
    code: (p) => `points * ${lit(p.multiplier)} + ${lit(p.bonus)}`,
  },
  {
    fn: 'limit_value',
    args: [{ name: 'x', lo: -100, hi: 200 }],
    description: 'Keep the value between a lower and an upper bound.',
    params: [
      { name: 'lower', unit: '', values: range(-20, 20, 5), edge: true },
      { name: 'upper', unit: '', values: range(50, 150, 10), edge: true },
    ],
    code: (p) => `clamp(x, ${lit(p.lower)}, ${lit(p.upper)})`,
  },
  {
    fn: 'greet',
    args: [{ name: 'name', choices: NAMES }],
    description: 'Greet the person: the greeting word, a comma and a space, then the name.',
    params: [
      {
        name: 'word',
        unit: '',
        values: ['hello', 'hi', 'welcome', 'hey', 'greetings'],
        free: ['hello', 'hi', 'welcome', 'hey', 'greetings', 'howdy', 'hiya', 'ahoy', 'hola', 'ciao', 'salut', 'morning', 'cheers', 'yo'],
      },
    ],
    code: (p) => `${lit(p.word)} + ", " + name`,
  },
  {
    fn: 'size_label',
    args: [{ name: 'n', lo: 0, hi: 200 }],
    description: 'Label a number "big" when it is above a limit, otherwise "small".',
    params: [{ name: 'limit', unit: '', values: range(20, 150, 10), edge: true }],
    code: (p) => `if n > ${lit(p.limit)} then "big" else "small"`,
  },
  {
    fn: 'round_price',
    args: [{ name: 'price', lo: 1, hi: 500 }],
    description: 'Round the price to the nearest multiple of a step.',
    params: [{ name: 'step', unit: 'cents', values: [5, 10, 20, 25, 50] }],
    code: (p) => `round(price / ${lit(p.step)}) * ${lit(p.step)}`,
  },
  {
    fn: 'monthly_cost',
    args: [{ name: 'users', lo: 1, hi: 40 }],
    description: 'A plan costs a base price plus a price per user beyond the included users.',
    params: [
      { name: 'base', unit: 'dollars', values: range(10, 50, 5) },
      { name: 'price', unit: 'dollars', values: range(2, 9) },
      { name: 'included', unit: 'users', values: range(3, 10), edge: true },
    ],
    code: (p) => `${lit(p.base)} + max(users - ${lit(p.included)}, 0) * ${lit(p.price)}`,
  },
  {
    fn: 'stars',
    args: [{ name: 'votes', lo: 0, hi: 500 }],
    description: 'Show the votes divided by a divisor, rounded down, but at most a maximum.',
    params: [
      { name: 'divisor', unit: '', values: range(10, 50, 10) },
      { name: 'maximum', unit: 'stars', values: range(3, 10) },
    ],
    code: (p) => `min(floor(votes / ${lit(p.divisor)}), ${lit(p.maximum)})`,
  },
  {
    fn: 'speeding_fine',
    args: [{ name: 'speed', lo: 30, hi: 160 }],
    description: 'Drivers pay a fine per km/h over the speed limit, and nothing at or under it.',
    params: [
      { name: 'limit', unit: 'km/h', values: range(50, 120, 10), edge: true },
      { name: 'fine', unit: 'dollars', values: range(2, 10) },
    ],
    code: (p) => `max(speed - ${lit(p.limit)}, 0) * ${lit(p.fine)}`,
  },
  {
    fn: 'water_bill',
    args: [{ name: 'litres', lo: 0, hi: 400 }],
    description: 'Water costs a low rate per litre up to a threshold and a high rate per litre above it.',
    params: [
      { name: 'low', unit: 'cents', values: range(1, 4) },
      { name: 'high', unit: 'cents', values: range(5, 9) },
      { name: 'threshold', unit: 'litres', values: range(50, 200, 25), edge: true },
    ],
    code: (p) =>
      `if litres <= ${lit(p.threshold)} then litres * ${lit(p.low)} else ${lit(p.threshold)} * ${lit(p.low)} + (litres - ${lit(p.threshold)}) * ${lit(p.high)}`,
  },
  {
    fn: 'savings',
    args: [{ name: 'years', lo: 0, hi: 30 }],
    description: 'Savings start at a deposit and grow by a fixed amount each year.',
    params: [
      { name: 'deposit', unit: 'dollars', values: range(100, 1000, 100) },
      { name: 'amount', unit: 'dollars', values: range(10, 100, 10) },
    ],
    code: (p) => `${lit(p.deposit)} + ${lit(p.amount)} * years`,
  },
  {
    fn: 'is_strong',
    args: [{ name: 'length', lo: 0, hi: 30 }],
    description: 'A password is strong when its length is at least a minimum.',
    params: [{ name: 'minimum', unit: 'characters', values: range(6, 16), edge: true }],
    code: (p) => `length >= ${lit(p.minimum)}`,
  },
  {
    fn: 'user_code',
    args: [{ name: 'name', choices: NAMES }],
    description: 'Make a code: the prefix, a dash, then the name in upper case.',
    params: [
      {
        name: 'prefix',
        unit: '',
        values: ['id', 'usr', 'emp', 'acc', 'mem'],
        free: ['id', 'usr', 'emp', 'acc', 'mem', 'cust', 'ref', 'ord', 'inv', 'grp', 'dev', 'tmp', 'adm', 'key'],
      },
    ],
    code: (p) => `${lit(p.prefix)} + "-" + upper(name)`,
  },
  {
    fn: 'weather',
    args: [{ name: 'temp', lo: -20, hi: 45 }],
    description: 'Say "cold" below a low mark, "hot" above a high mark, otherwise "mild".',
    params: [
      { name: 'low', unit: 'degrees', values: range(0, 12, 2), edge: true },
      { name: 'high', unit: 'degrees', values: range(24, 34, 2), edge: true },
    ],
    code: (p) => `if temp < ${lit(p.low)} then "cold" else if temp > ${lit(p.high)} then "hot" else "mild"`,
  },
  {
    fn: 'order_cost',
    args: [{ name: 'qty', lo: 1, hi: 100 }],
    description: 'Items cost a unit price; ordering at least a bulk quantity costs a lower bulk price per item.',
    params: [
      { name: 'price', unit: 'dollars', values: range(8, 15) },
      { name: 'bulk', unit: 'items', values: range(10, 50, 5), edge: true },
      { name: 'discounted', unit: 'dollars', values: range(4, 7) },
    ],
    code: (p) => `if qty >= ${lit(p.bulk)} then qty * ${lit(p.discounted)} else qty * ${lit(p.price)}`,
  },
  {
    fn: 'calories',
    args: [{ name: 'minutes', lo: 0, hi: 120 }],
    description: 'A workout burns a number of calories per minute plus a fixed warmup amount.',
    params: [
      { name: 'rate', unit: 'calories', values: range(5, 15) },
      { name: 'warmup', unit: 'calories', values: range(20, 100, 10) },
    ],
    code: (p) => `${lit(p.rate)} * minutes + ${lit(p.warmup)}`,
  },
  {
    fn: 'weighted_average',
    args: [
      { name: 'a', lo: 0, hi: 100 },
      { name: 'b', lo: 0, hi: 100 },
    ],
    description: 'Average two scores, giving the first a weight in percent and the second the rest.',
    params: [{ name: 'weight', unit: 'percent', values: range(10, 90, 10) }],
    code: (p) => `(a * ${lit(p.weight)} + b * (100 - ${lit(p.weight)})) / 100`,
  },
  {
    fn: 'late_fee',
    args: [{ name: 'days', lo: 0, hi: 60 }],
    description: 'A library charges a fee per day late, up to a maximum.',
    params: [
      { name: 'fee', unit: 'cents', values: range(10, 50, 5) },
      { name: 'maximum', unit: 'cents', values: range(200, 1000, 100) },
    ],
    code: (p) => `min(days * ${lit(p.fee)}, ${lit(p.maximum)})`,
  },
  {
    fn: 'fuel_needed',
    args: [{ name: 'km', lo: 0, hi: 800 }],
    description: 'A car uses a number of litres per 100 km; return the litres for a trip.',
    params: [{ name: 'consumption', unit: 'litres', values: range(4, 12) }],
    code: (p) => `km * ${lit(p.consumption)} / 100`,
  },
  {
    fn: 'ticket_price',
    args: [{ name: 'age', lo: 0, hi: 90 }],
    description: 'Children under an age limit pay a child price; everyone else pays the full price.',
    params: [
      { name: 'limit', unit: 'years', values: range(10, 16), edge: true },
      { name: 'child', unit: 'dollars', values: range(3, 8) },
      { name: 'full', unit: 'dollars', values: range(10, 20) },
    ],
    code: (p) => `if age < ${lit(p.limit)} then ${lit(p.child)} else ${lit(p.full)}`,
  },
];

export const TEMPLATE_BY_FN: ReadonlyMap<string, Template> = new Map(TEMPLATES.map((t) => [t.fn, t]));

/**
 * The values a task with free values (backend option `freeValues`) draws a parameter from: for a
 * number, every whole number from a span below the template's list to a span above it (span = the
 * list's max − min, at least 10), but never below 1 for a list of positive numbers, 0 for one that
 * starts at 0, or the list's own minimum for one that reaches below 0; for a string, the
 * parameter's `free` list. The template lists step by 5 or 10, and digits are single tokens, so a
 * policy forged on them alone learns that a number's last digit is 0 or 5 and misreads "55" as 50
 * on held-out tasks (docs/experiments/2026-12-03-forge-six-g-copying-numbers.md); any whole number leaves no
 * last digit to guess.
 */
export function freeValuesOf(p: Param): readonly Value[] {
  if (p.values.every((v) => typeof v === 'string')) return p.free ?? p.values;
  const nums = p.values as readonly number[];
  const [lo, hi] = [Math.min(...nums), Math.max(...nums)];
  const span = Math.max(10, hi - lo);
  const floor = lo >= 1 ? 1 : Math.min(0, lo);
  return range(Math.max(floor, lo - span), hi + span);
}
