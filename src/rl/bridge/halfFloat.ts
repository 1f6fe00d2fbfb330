// Reading safetensors files whose float tensors are F16 or BF16 (what PEFT writes when an adapter was
// trained in half precision and saved with `autocast_adapter_dtype=False`). The model core's reader
// (model/safetensors.ts) knows F32/F64/I32/I64/U8; this widens F16/BF16/F64 tensors to F32 in a
// rewritten file and hands that to the same reader, so every layout check stays in one place.
// IEEE 754 binary16: 1 sign, 5 exponent (bias 15), 10 mantissa bits; bfloat16: the top 16 bits of a float32.
import { readSafetensors, SafetensorsError, writeSafetensors, type SafeArray, type SafeTensor } from '../model/safetensors.ts';

const WIDENED = new Set(['F16', 'BF16']);

/** float32 value of an IEEE binary16 bit pattern (subnormals, infinities and NaN included). */
export function f16ToF32(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >> 10) & 0x1f;
  const frac = h & 0x3ff;
  if (exp === 0) return sign * frac * 2 ** -24;
  if (exp === 0x1f) return frac ? NaN : sign * Infinity;
  return sign * (1 + frac / 1024) * 2 ** (exp - 15);
}

/** float32 value of a bfloat16 bit pattern (exact: bf16 is a truncated float32). */
export function bf16ToF32(h: number): number {
  const u = new Uint32Array([h << 16]);
  return new Float32Array(u.buffer)[0];
}

interface HeaderEntry {
  dtype: string;
  shape: number[];
  data_offsets: [number, number];
}

/**
 * Like readSafetensors, but F16 and BF16 tensors come back as F32 (exactly: every half value is a
 * float32). Other dtypes are returned as stored. `where` (the file's path) is named in errors.
 */
export function readSafetensorsWidened(bytes: Uint8Array, where: string): { tensors: Record<string, SafeTensor>; metadata: Record<string, string> } {
  if (bytes.length < 8) return readSafetensors(bytes, where);
  const n = Number(new DataView(bytes.buffer, bytes.byteOffset, 8).getBigUint64(0, true));
  if (8 + n > bytes.length) return readSafetensors(bytes, where);
  let header: Record<string, unknown>;
  try {
    header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + n))) as Record<string, unknown>;
  } catch {
    return readSafetensors(bytes, where);
  }
  const entries = Object.entries(header).filter(([k]) => k !== '__metadata__') as [string, HeaderEntry][];
  if (!entries.some(([, e]) => WIDENED.has(e?.dtype))) return readSafetensors(bytes, where);
  // Rebuild: widened tensors as F32, the others copied through the ordinary reader's checks.
  const body = bytes.subarray(8 + n);
  const out: Record<string, { shape: number[]; data: SafeArray }> = {};
  const plain: Record<string, HeaderEntry> = {};
  for (const [name, e] of entries) {
    if (!WIDENED.has(e?.dtype)) {
      plain[name] = e;
      continue;
    }
    const count = (e.shape ?? []).reduce((a, b) => a * b, 1);
    const [b, end] = e.data_offsets ?? [-1, -1];
    if (!(b >= 0 && end <= body.length && end - b === count * 2)) {
      throw new SafetensorsError(
        where,
        `${where}: tensor ${name} offsets [${b}, ${end}] do not fit shape [${(e.shape ?? []).join(', ')}] ${e.dtype} in ${body.length} bytes`,
      );
    }
    const dv = new DataView(body.buffer, body.byteOffset + b, end - b);
    const widen = e.dtype === 'F16' ? f16ToF32 : bf16ToF32;
    out[name] = { shape: e.shape, data: Float32Array.from({ length: count }, (_, i) => widen(dv.getUint16(2 * i, true))) };
  }
  const meta = (header.__metadata__ as Record<string, string> | undefined) ?? {};
  if (Object.keys(plain).length) {
    // Re-read the non-widened tensors through the ordinary reader (it checks their offsets and dtypes).
    const kept: Record<string, unknown> = { ...plain };
    const keptJson = new TextEncoder().encode(JSON.stringify(kept));
    const file = new Uint8Array(8 + keptJson.length + body.length);
    new DataView(file.buffer).setBigUint64(0, BigInt(keptJson.length), true);
    file.set(keptJson, 8);
    file.set(body, 8 + keptJson.length);
    for (const [name, t] of Object.entries(readSafetensors(file, where).tensors)) out[name] = { shape: t.shape, data: t.data };
  }
  return readSafetensors(writeSafetensors(out, meta), where);
}
