// The safetensors format (Hugging Face, https://github.com/huggingface/safetensors): an 8-byte
// little-endian header length N, N bytes of JSON ({name: {dtype, shape, data_offsets: [begin, end]},
// "__metadata__": {string: string}}), then the tensors' little-endian bytes. Offsets are relative to
// the end of the header. Used for model weights (model.safetensors) and PEFT adapters.

export type SafeDType = 'F32' | 'F64' | 'I32' | 'I64' | 'U8';
export type SafeArray = Float32Array | Float64Array | Int32Array | BigInt64Array | Uint8Array;

export interface SafeTensor {
  dtype: SafeDType;
  shape: number[];
  data: SafeArray;
}

/** A safetensors file that cannot be read, or tensors that cannot be written. */
export class SafetensorsError extends Error {
  constructor(
    readonly where: string,
    message: string,
  ) {
    super(message);
    this.name = 'SafetensorsError';
  }
}

const WIDTH: Record<SafeDType, number> = { F32: 4, F64: 8, I32: 4, I64: 8, U8: 1 };

function dtypeOf(a: SafeArray): SafeDType {
  if (a instanceof Float32Array) return 'F32';
  if (a instanceof Float64Array) return 'F64';
  if (a instanceof Int32Array) return 'I32';
  if (a instanceof BigInt64Array) return 'I64';
  return 'U8';
}

function view(dtype: SafeDType, bytes: Uint8Array): SafeArray {
  // copy so the typed array is aligned and owns its memory
  const buf = bytes.slice().buffer;
  switch (dtype) {
    case 'F32':
      return new Float32Array(buf);
    case 'F64':
      return new Float64Array(buf);
    case 'I32':
      return new Int32Array(buf);
    case 'I64':
      return new BigInt64Array(buf);
    case 'U8':
      return new Uint8Array(buf);
  }
}

/** Serialises tensors (sorted by name, so equal inputs give equal bytes). */
export function writeSafetensors(tensors: Record<string, { shape: number[]; data: SafeArray }>, metadata: Record<string, string> = {}): Uint8Array {
  const names = Object.keys(tensors).sort();
  const header: Record<string, unknown> = {};
  if (Object.keys(metadata).length) header.__metadata__ = metadata;
  let offset = 0;
  for (const name of names) {
    const { shape, data } = tensors[name];
    const count = shape.reduce((a, b) => a * b, 1);
    if (count !== data.length) throw new SafetensorsError(name, `tensor ${name}: ${data.length} values for shape [${shape.join(', ')}]`);
    header[name] = { dtype: dtypeOf(data), shape, data_offsets: [offset, offset + data.byteLength] };
    offset += data.byteLength;
  }
  let json = new TextEncoder().encode(JSON.stringify(header));
  const padded = Math.ceil(json.length / 8) * 8; // the spec pads the header with spaces to 8 bytes
  if (padded !== json.length) {
    const p = new Uint8Array(padded).fill(0x20);
    p.set(json);
    json = p;
  }
  const out = new Uint8Array(8 + json.length + offset);
  new DataView(out.buffer).setBigUint64(0, BigInt(json.length), true);
  out.set(json, 8);
  let pos = 8 + json.length;
  for (const name of names) {
    const d = tensors[name].data;
    out.set(new Uint8Array(d.buffer, d.byteOffset, d.byteLength), pos);
    pos += d.byteLength;
  }
  return out;
}

/** Parses a safetensors file; `where` (its path) is named in errors. */
export function readSafetensors(bytes: Uint8Array, where = 'model.safetensors'): { tensors: Record<string, SafeTensor>; metadata: Record<string, string> } {
  if (bytes.length < 8) throw new SafetensorsError(where, `${where} is too short to be safetensors`);
  const n = Number(new DataView(bytes.buffer, bytes.byteOffset, 8).getBigUint64(0, true));
  if (8 + n > bytes.length) throw new SafetensorsError(where, `${where}: header length ${n} runs past the end of the file`);
  let header: Record<string, { dtype?: string; shape?: number[]; data_offsets?: [number, number] } | Record<string, string>>;
  try {
    header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + n)));
  } catch (e) {
    throw new SafetensorsError(where, `${where}: header is not valid JSON (${(e as Error).message})`);
  }
  const body = bytes.subarray(8 + n);
  const tensors: Record<string, SafeTensor> = {};
  let metadata: Record<string, string> = {};
  for (const [name, entry] of Object.entries(header)) {
    if (name === '__metadata__') {
      metadata = entry as Record<string, string>;
      continue;
    }
    const { dtype, shape, data_offsets: off } = entry as { dtype?: string; shape?: number[]; data_offsets?: [number, number] };
    if (!dtype || !(dtype in WIDTH)) throw new SafetensorsError(where, `${where}: tensor ${name} has unsupported dtype ${dtype}`);
    if (!Array.isArray(shape) || !Array.isArray(off) || off.length !== 2)
      throw new SafetensorsError(where, `${where}: tensor ${name} lacks shape or data_offsets`);
    const count = shape.reduce((a, b) => a * b, 1);
    const [b, e] = off;
    if (!(b >= 0 && e <= body.length && e - b === count * WIDTH[dtype as SafeDType])) {
      throw new SafetensorsError(
        where,
        `${where}: tensor ${name} offsets [${b}, ${e}] do not fit shape [${shape.join(', ')}] ${dtype} in ${body.length} bytes`,
      );
    }
    tensors[name] = { dtype: dtype as SafeDType, shape, data: view(dtype as SafeDType, body.subarray(b, e)) };
  }
  return { tensors, metadata };
}
