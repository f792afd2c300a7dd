package arbor.policy.holder;

import ai.djl.Device;
import org.apache.spark.TaskContext;
import org.apache.spark.resource.ResourceInformation;

/**
 * The Spark adapter of {@link Devices}: the device of the running task, from the GPUs Spark's
 * resource scheduling assigned it ({@code spark.task.resource.gpu.amount}); the CPU outside a
 * task or when the task has no GPU.
 */
public final class SparkTaskDevice {

  private SparkTaskDevice() {}

  public static Device current() {
    TaskContext task = TaskContext.get();
    if (task == null) {
      return Device.cpu();
    }
    ResourceInformation gpus = task.resourcesJMap().get("gpu");
    return Devices.forTask(gpus == null ? null : gpus.addresses());
  }
}
