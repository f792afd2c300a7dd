package arbor.rlm.policy;

import java.util.ArrayList;
import java.util.List;

/**
 * Where a node sits in its tree: {@code root}, {@code root.0} (the root's child of prompt index
 * 0), {@code root.1.0}, ... The index is the order of the prompt in the call, not of completion.
 */
public record NodePath(List<Integer> indexes) {
  public static final NodePath ROOT = new NodePath(List.of());

  public NodePath {
    indexes = List.copyOf(indexes);
  }

  public NodePath child(int index) {
    List<Integer> next = new ArrayList<>(indexes);
    next.add(index);
    return new NodePath(next);
  }

  public int depth() {
    return indexes.size();
  }

  public static NodePath parse(String text) {
    String[] parts = text.strip().split("\\.");
    if (!parts[0].equals("root")) {
      throw new IllegalArgumentException("a node path starts with 'root', got '" + text + "'");
    }
    List<Integer> idx = new ArrayList<>();
    for (int i = 1; i < parts.length; i++) {
      idx.add(Integer.parseInt(parts[i]));
    }
    return new NodePath(idx);
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("root");
    indexes.forEach(i -> sb.append('.').append(i));
    return sb.toString();
  }
}
