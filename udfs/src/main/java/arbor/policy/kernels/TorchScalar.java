package arbor.policy.kernels;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.types.Shape;

/**
 * A constant operand for differentiable arithmetic, in memory libtorch owns.
 *
 * <p>DJL's {@code mul(Number)}, {@code div(Number)} and the like wrap the number in a tensor
 * over a Java direct buffer (no copy) and close that tensor as soon as the op returns. Autograd
 * keeps the operand for the backward pass (a product's gradient is the other factor, a
 * quotient's the divisor), and once the garbage collector frees the buffer the backward reads
 * freed memory: gradients silently wrong, or an infinite gradient norm when the bytes happen to
 * spell a zero divisor. A tensor from {@code full} is allocated by libtorch, and the saved
 * operand keeps it alive as long as the graph needs it.
 */
public final class TorchScalar {

  private TorchScalar() {}

  /** A 0-d tensor holding {@code value}, in {@code like}'s manager and data type. */
  public static NDArray like(NDArray like, double value) {
    return like.getManager().full(new Shape(), (float) value, like.getDataType());
  }
}
