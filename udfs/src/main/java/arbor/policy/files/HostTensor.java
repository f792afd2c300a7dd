package arbor.policy.files;

import java.util.Arrays;

/**
 * A tensor in Java memory, widened to F32, with the dtype it was stored in (so that an export
 * writes it back in the same type and an unmodified checkpoint round-trips bit for bit).
 */
public record HostTensor(String name, TensorDtype dtype, long[] shape, float[] values) {

  public HostTensor {
    long n = 1;
    for (long d : shape) {
      n *= d;
    }
    if (n != values.length) {
      throw new IllegalArgumentException("Tensor '" + name + "' has shape "
          + Arrays.toString(shape) + " (" + n + " elements) but " + values.length + " values");
    }
  }

  public long elementCount() {
    return values.length;
  }
}
