package arbor.policy.checkpoint;

import arbor.policy.files.HostTensor;
import arbor.policy.files.TensorDtype;
import arbor.policy.train.AdamWState;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The learner's {@link AdamWState} as the store's generic {@link OptimizerState} and back:
 * moments become tensors {@code m/<param>} and {@code v/<param>}, the step count goes in the JSON.
 */
public final class AdamWStates {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String FIRST = "m/";
  private static final String SECOND = "v/";

  private AdamWStates() {}

  public static OptimizerState toOptimizerState(AdamWState s) {
    List<HostTensor> tensors = new ArrayList<>();
    s.firstMoments().forEach((name, m) -> tensors.add(flat(FIRST + name, m)));
    s.secondMoments().forEach((name, v) -> tensors.add(flat(SECOND + name, v)));
    return new OptimizerState(tensors, "{\"optimizer\":\"adamw\",\"step\":" + s.step() + "}");
  }

  public static AdamWState fromOptimizerState(OptimizerState s) {
    JsonNode json;
    try {
      json = JSON.readTree(s.json());
    } catch (IOException e) {
      throw new IllegalArgumentException("optimizer state JSON is not JSON: " + s.json(), e);
    }
    if (!"adamw".equals(json.path("optimizer").asText())) {
      throw new IllegalArgumentException("the checkpoint's optimizer state is not AdamW's: "
          + s.json());
    }
    Map<String, float[]> m = new LinkedHashMap<>();
    Map<String, float[]> v = new LinkedHashMap<>();
    for (HostTensor t : s.tensors()) {
      if (t.name().startsWith(FIRST)) {
        m.put(t.name().substring(FIRST.length()), t.values());
      } else if (t.name().startsWith(SECOND)) {
        v.put(t.name().substring(SECOND.length()), t.values());
      } else {
        throw new IllegalArgumentException("optimizer tensor '" + t.name() + "' is not an AdamW"
            + " moment (m/<param> or v/<param>)");
      }
    }
    return new AdamWState(json.path("step").asLong(), m, v);
  }

  private static HostTensor flat(String name, float[] values) {
    return new HostTensor(name, TensorDtype.F32, new long[] {values.length}, values);
  }
}
