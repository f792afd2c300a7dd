package arbor.policy.holder;

import ai.djl.Device;

/** The device a Spark task should use, from the GPU addresses its resources assigned it. */
public final class Devices {

  private Devices() {}

  /**
   * The first assigned GPU, or the CPU when the task has none (the Spark adapter passes
   * {@code TaskContext.get().resources().get("gpu").addresses()}, or null).
   */
  public static Device forTask(String[] gpuAddresses) {
    if (gpuAddresses == null || gpuAddresses.length == 0) {
      return Device.cpu();
    }
    try {
      return Device.gpu(Integer.parseInt(gpuAddresses[0].trim()));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("GPU address '" + gpuAddresses[0] + "' is not a device"
          + " index; check the executor's GPU discovery script", e);
    }
  }
}
