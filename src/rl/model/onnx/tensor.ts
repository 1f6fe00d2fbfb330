// A tensor as plain data: what the graph builders' feeds produce and what ONNX Runtime's owner
// (src/rl/runtime/ort.ts) turns into its own tensors. Defined here, below the runtime, so building
// feeds needs no ONNX Runtime; plain typed arrays cross comlink unchanged.

export type TensorType = 'float32' | 'float64' | 'int32' | 'int64' | 'uint8' | 'bool';

/** A tensor as plain data, safe to send through comlink. */
export interface TensorData {
  type: TensorType;
  data: Float32Array | Float64Array | Int32Array | BigInt64Array | Uint8Array;
  dims: number[];
}
