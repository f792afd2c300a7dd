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

  /** The device chosen for a task, and why it is not the one Spark assigned when it is not. */
  public record Choice(Device device, String warning) {}

  /**
   * {@link #forTask} checked against the CUDA devices this JVM's engine can open
   * ({@code visibleGpus}): an assigned GPU that the engine cannot see (no CUDA driver, or the
   * CPU build of libtorch on the class path) falls back to the CPU with a warning saying so,
   * instead of failing the first tensor allocation on the device.
   */
  public static Choice choose(String[] gpuAddresses, int visibleGpus) {
    Device wanted = forTask(gpuAddresses);
    if (!wanted.isGpu() || wanted.getDeviceId() < visibleGpus) {
      return new Choice(wanted, null);
    }
    return new Choice(Device.cpu(), "Spark assigned GPU " + gpuAddresses[0].trim() + " to this task, but the "
        + "PyTorch engine sees " + visibleGpus + " CUDA device(s): running on the CPU. Check the executor's "
        + "CUDA driver and that the jar carries a CUDA libtorch (mvn -Pgpu, docs/operations.md)");
  }
}
