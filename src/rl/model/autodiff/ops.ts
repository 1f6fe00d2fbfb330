// The op set that build-time reverse-mode autodiff understands (docs/design.md, "One model definition,
// two kinds of graph"). A forward graph that is to be trained may use only these ops on the path
// from a trainable parameter to the loss; anything else may appear off that path (e.g. building a
// causal mask or RoPE tables from constants). Versions: ai.onnx opset 17, com.microsoft 1.

/** Ops with a backward rule. Notes per op are in docs/training-graphs.md. */
export const DIFFERENTIABLE_OPS = [
  'MatMul',
  'MatMulNBits', // com.microsoft; frozen 4-bit weight: gradient to the activation only
  'Gemm',
  'Add',
  'Sub',
  'Mul',
  'Div',
  'Neg',
  'Sqrt',
  'Pow', // exponent must be a constant initializer
  'Exp',
  'Log',
  'Sigmoid',
  'Tanh',
  'Relu',
  'Softmax',
  'LogSoftmax',
  'ReduceSum', // axes as an input (opset 13+)
  'ReduceMean', // axes as an attribute (opset 17)
  'ReduceMax', // subgradient split evenly between ties
  'Reshape',
  'Transpose',
  'Unsqueeze',
  'Squeeze',
  'Concat',
  'Slice', // steps of 1 only
  'Gather', // axis 0 (embedding lookup), int32 or int64 indices
  'Expand',
  'Where',
  'Cast',
  'Identity',
  'Clip',
  'Min',
  'Max',
] as const;
