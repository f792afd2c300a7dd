package arbor.policy.holder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.Device;
import ai.djl.engine.Engine;
import org.junit.jupiter.api.Test;

class DevicesTest {

  @Test
  void anAssignedGpuTheEngineCanOpenIsTheDeviceChosen() {
    Devices.Choice choice = Devices.choose(new String[] {"1"}, 2);
    assertEquals(Device.gpu(1), choice.device());
    assertNull(choice.warning());
  }

  @Test
  void aTaskWithoutAGpuRunsOnTheCpuWithoutAWarning() {
    assertEquals(new Devices.Choice(Device.cpu(), null), Devices.choose(null, 0));
    assertEquals(new Devices.Choice(Device.cpu(), null), Devices.choose(new String[0], 4));
  }

  @Test
  void anAssignedGpuOnAMachineWithoutCudaFallsBackToTheCpuAndSaysWhy() {
    // This machine's engine is the CPU build of libtorch: it sees no CUDA device at all.
    int visible = Engine.getEngine("PyTorch").getGpuCount();
    assertEquals(0, visible, "the test machine has no CUDA device");
    Devices.Choice choice = Devices.choose(new String[] {"0"}, visible);
    assertEquals(Device.cpu(), choice.device());
    assertTrue(choice.warning().contains("Spark assigned GPU 0") && choice.warning().contains("sees 0 CUDA device(s)")
        && choice.warning().contains("-Pgpu"), choice.warning());
  }

  @Test
  void aGpuIndexBeyondTheVisibleOnesAlsoFallsBack() {
    Devices.Choice choice = Devices.choose(new String[] {" 3 "}, 2);
    assertEquals(Device.cpu(), choice.device());
    assertTrue(choice.warning().contains("GPU 3"), choice.warning());
  }

  @Test
  void anAddressThatIsNoIndexBlamesTheDiscoveryScript() {
    var e = assertThrows(IllegalArgumentException.class, () -> Devices.choose(new String[] {"GPU-3f2a"}, 1));
    assertTrue(e.getMessage().contains("'GPU-3f2a'") && e.getMessage().contains("discovery script"), e.getMessage());
  }
}
