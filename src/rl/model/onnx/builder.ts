// A small typed builder for ONNX graphs, serialised with onnx-proto.
// Every graph Turnwise runs is emitted from TypeScript through this module (docs/design.md, "One model
// definition, two kinds of graph"). Versions: IR 8, ai.onnx opset 17, com.microsoft 1 — the set
// seen working on wasm, onnxruntime-node and the WebGPU EP alike.
import onnxProto from 'onnx-proto';

const { onnx } = onnxProto;

/** Element types the builder emits. int32 for indices: the WebGPU EP lacks some int64 kernels. */
export type DType = 'float32' | 'float64' | 'int32' | 'int64' | 'uint8' | 'bool';

/** A dimension: a fixed size or a symbolic name such as 'batch'. */
export type Dim = number | string;

/** Typed data for an initializer, matching its DType. */
export type TensorArray = Float32Array | Float64Array | Int32Array | BigInt64Array | Uint8Array;

export type AttrValue = number | string | number[] | Float32Array | { float: number } | { floats: number[] };

const ELEM_TYPE: Record<DType, number> = {
  float32: onnx.TensorProto.DataType.FLOAT,
  float64: onnx.TensorProto.DataType.DOUBLE,
  int32: onnx.TensorProto.DataType.INT32,
  int64: onnx.TensorProto.DataType.INT64,
  uint8: onnx.TensorProto.DataType.UINT8,
  bool: onnx.TensorProto.DataType.BOOL,
};

/** Read-only view of one node, as it was added (autodiff walks these). */
export interface NodeView {
  readonly opType: string;
  readonly domain: string;
  readonly inputs: readonly string[];
  readonly outputs: readonly string[];
  readonly attrs: Readonly<Record<string, AttrValue>>;
}

/** Read-only view of a declared graph input or output. */
export interface ValueView {
  readonly name: string;
  readonly dtype: DType;
  readonly dims: readonly Dim[];
}

/** Read-only view of an initializer and its data. */
export interface InitializerView {
  readonly name: string;
  readonly dtype: DType;
  readonly dims: readonly number[];
  readonly data: TensorArray;
}

/** Raised when a graph is assembled inconsistently (duplicate names, unknown inputs). */
export class GraphBuildError extends Error {
  override name = 'GraphBuildError';
}

function valueInfo(name: string, dtype: DType, dims: readonly Dim[]): onnxProto.onnx.IValueInfoProto {
  return {
    name,
    type: {
      tensorType: {
        elemType: ELEM_TYPE[dtype],
        shape: { dim: dims.map((d) => (typeof d === 'number' ? { dimValue: d } : { dimParam: d })) },
      },
    },
  };
}

function attribute(name: string, value: AttrValue): onnxProto.onnx.IAttributeProto {
  const A = onnx.AttributeProto.AttributeType;
  if (typeof value === 'number') {
    if (!Number.isInteger(value)) throw new GraphBuildError(`attribute ${name}: ${value} is not an integer; use { float }`);
    return { name, type: A.INT, i: value };
  }
  if (typeof value === 'string') return { name, type: A.STRING, s: new TextEncoder().encode(value) };
  if (Array.isArray(value)) return { name, type: A.INTS, ints: value };
  if (value instanceof Float32Array) return { name, type: A.FLOATS, floats: Array.from(value) };
  if ('float' in value) return { name, type: A.FLOAT, f: value.float };
  return { name, type: A.FLOATS, floats: value.floats };
}

function rawBytes(data: TensorArray): Uint8Array {
  // ONNX raw_data is little-endian; every platform we run on is little-endian too.
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength).slice();
}

/**
 * Accumulates nodes, inputs, outputs and initializers, then emits a serialised ModelProto.
 * Names are unique per graph; `fresh(prefix)` hands out new ones for intermediates.
 */
export class GraphBuilder {
  private readonly nodes: onnxProto.onnx.INodeProto[] = [];
  private readonly inputs: onnxProto.onnx.IValueInfoProto[] = [];
  private readonly outputs: onnxProto.onnx.IValueInfoProto[] = [];
  private readonly initializers: onnxProto.onnx.ITensorProto[] = [];
  private readonly names = new Set<string>();
  private counter = 0;
  private readonly nodeViews: NodeView[] = [];
  private readonly inputViews: ValueView[] = [];
  private readonly outputViews: ValueView[] = [];
  private readonly initializerViews = new Map<string, InitializerView>();

  constructor(readonly graphName: string) {}

  private claim(name: string): string {
    if (this.names.has(name)) throw new GraphBuildError(`duplicate value name "${name}" in graph ${this.graphName}`);
    this.names.add(name);
    return name;
  }

  /** True when a value of this name exists (input, initializer or node output). */
  has(name: string): boolean {
    return this.names.has(name);
  }

  /** A name not used yet, for an intermediate value. */
  fresh(prefix: string): string {
    let name: string;
    do name = `${prefix}_${this.counter++}`;
    while (this.names.has(name));
    return name;
  }

  input(name: string, dtype: DType, dims: readonly Dim[]): string {
    this.inputs.push(valueInfo(this.claim(name), dtype, dims));
    this.inputViews.push({ name, dtype, dims: [...dims] });
    return name;
  }

  output(name: string, dtype: DType, dims: readonly Dim[]): string {
    if (!this.names.has(name)) throw new GraphBuildError(`output "${name}" is not produced by graph ${this.graphName}`);
    this.outputs.push(valueInfo(name, dtype, dims));
    this.outputViews.push({ name, dtype, dims: [...dims] });
    return name;
  }

  initializer(name: string, dtype: DType, dims: readonly number[], data: TensorArray): string {
    const count = dims.reduce((a, b) => a * b, 1);
    if (data.length !== count) {
      throw new GraphBuildError(`initializer "${name}": ${data.length} values for shape [${dims.join(', ')}]`);
    }
    this.initializers.push({ name: this.claim(name), dataType: ELEM_TYPE[dtype], dims: [...dims], rawData: rawBytes(data) });
    this.initializerViews.set(name, { name, dtype, dims: [...dims], data });
    return name;
  }

  /** A scalar or 1-D constant as an initializer with a fresh name. */
  constant(dtype: DType, values: number[] | TensorArray, dims?: number[]): string {
    const data = values instanceof Array ? toArray(dtype, values) : values;
    return this.initializer(this.fresh('const'), dtype, dims ?? [data.length], data);
  }

  /**
   * Appends a node. `outputs` may be a count (fresh names are made) or explicit names.
   * Returns the output names in order.
   */
  node(opType: string, inputs: readonly string[], outputs: number | readonly string[] = 1, attrs: Record<string, AttrValue> = {}, domain = ''): string[] {
    for (const i of inputs) {
      if (i !== '' && !this.names.has(i)) {
        throw new GraphBuildError(`${opType}: input "${i}" is not defined in graph ${this.graphName}`);
      }
    }
    const outs = typeof outputs === 'number' ? Array.from({ length: outputs }, () => this.fresh(opType.toLowerCase())) : [...outputs];
    outs.forEach((o) => this.claim(o));
    this.nodes.push({
      opType,
      domain,
      name: this.fresh(`n_${opType}`),
      input: [...inputs],
      output: outs,
      attribute: Object.entries(attrs).map(([k, v]) => attribute(k, v)),
    });
    this.nodeViews.push({ opType, domain, inputs: [...inputs], outputs: outs, attrs: { ...attrs } });
    return outs;
  }

  /** Single-output shorthand for `node`. */
  op(opType: string, inputs: readonly string[], attrs: Record<string, AttrValue> = {}, domain = ''): string {
    return this.node(opType, inputs, 1, attrs, domain)[0];
  }

  get nodeCount(): number {
    return this.nodes.length;
  }

  /** The nodes so far, in insertion (hence topological) order. */
  nodeList(): readonly NodeView[] {
    return this.nodeViews;
  }

  /** Declared graph inputs, in order. */
  inputList(): readonly ValueView[] {
    return this.inputViews;
  }

  /** Declared graph outputs, in order. */
  outputList(): readonly ValueView[] {
    return this.outputViews;
  }

  /** The initializer of this name, or undefined. */
  initializerOf(name: string): InitializerView | undefined {
    return this.initializerViews.get(name);
  }

  /** Serialises the graph as an ONNX model (IR 8, opset 17, com.microsoft 1). */
  toBytes(opset = 17): Uint8Array {
    const model = onnx.ModelProto.create({
      irVersion: 8,
      producerName: 'turnwise',
      opsetImport: [
        { domain: '', version: opset },
        { domain: 'com.microsoft', version: 1 },
      ],
      graph: {
        name: this.graphName,
        node: this.nodes,
        input: this.inputs,
        output: this.outputs,
        initializer: this.initializers,
      },
    });
    return onnx.ModelProto.encode(model).finish();
  }
}

function toArray(dtype: DType, values: number[]): TensorArray {
  switch (dtype) {
    case 'float32':
      return Float32Array.from(values);
    case 'float64':
      return Float64Array.from(values);
    case 'int32':
      return Int32Array.from(values);
    case 'int64':
      return BigInt64Array.from(values.map((v) => BigInt(v)));
    case 'uint8':
    case 'bool':
      return Uint8Array.from(values);
  }
}
