package arbor.policy.holder;

import ai.djl.Device;
import ai.djl.engine.Engine;
import org.apache.spark.TaskContext;
import org.apache.spark.resource.ResourceInformation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Spark adapter of {@link Devices}: the device of the running task, from the GPUs Spark's
 * resource scheduling assigned it ({@code spark.task.resource.gpu.amount}); the CPU outside a
 * task, when the task has no GPU, or (with a warning) when the engine cannot open the GPU.
 */
public final class SparkTaskDevice {
  private static final Logger LOG = LoggerFactory.getLogger(SparkTaskDevice.class);

  private SparkTaskDevice() {}

  public static Device current() {
    TaskContext task = TaskContext.get();
    if (task == null) {
      return Device.cpu();
    }
    ResourceInformation gpus = task.resourcesJMap().get("gpu");
    String[] addresses = gpus == null ? null : gpus.addresses();
    if (addresses == null || addresses.length == 0) {
      return Device.cpu();
    }
    // Only a task that was given a GPU pays for asking the engine how many it can open.
    Devices.Choice choice = Devices.choose(addresses, Engine.getEngine("PyTorch").getGpuCount());
    if (choice.warning() != null) {
      LOG.warn(choice.warning());
    }
    return choice.device();
  }
}
