/** One product: op(A) m × k times op(B) k × n. */
export interface GemmShape {
  m: number;
  n: number;
  k: number;
  transA: boolean;
  transB: boolean;
  /** What the product is in a PPO update, e.g. "forward, hidden layer". */
  role: string;
}
