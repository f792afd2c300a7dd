package arbor.policy.generate;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import arbor.policy.model.ModelConfig;
import arbor.policy.model.Qwen3Model;

/**
 * The KV caches of every sequence an engine is running, one slot per sequence, stored per layer
 * as one (slots, kvHeads, capacity, headDim) tensor. A decode step over the sequences in slots
 * [0, n) then attends over one contiguous slice (n, kvHeads, maxLength, headDim) with a length
 * mask, instead of n separate small attentions or a gather that copies every cache each step.
 * Slots and capacity grow by doubling; the caller keeps its sequences in slots [0, n).
 *
 * <p>Owned by one engine thread; not thread-safe.
 */
final class BatchKvCache implements AutoCloseable {

  private final NDManager manager;
  private final int layers;
  private final long kvHeads;
  private final long headDim;
  private NDArray[] keys;
  private NDArray[] values;
  private int slots;
  private int capacity;

  BatchKvCache(NDManager manager, ModelConfig config, int slots, int capacity) {
    this.manager = manager;
    this.layers = config.numLayers();
    this.kvHeads = config.numKvHeads();
    this.headDim = config.headDim();
    this.keys = new NDArray[layers];
    this.values = new NDArray[layers];
    allocate(Math.max(1, slots), Math.max(16, capacity), 0, 0);
  }

  int slots() {
    return slots;
  }

  int capacity() {
    return capacity;
  }

  /** Makes room for {@code slotsNeeded} sequences of up to {@code lengthNeeded} tokens. */
  void ensure(int slotsNeeded, int lengthNeeded, int slotsInUse, int longestInUse) {
    if (slotsNeeded <= slots && lengthNeeded <= capacity) {
      return;
    }
    int s = slots;
    while (s < slotsNeeded) {
      s *= 2;
    }
    int c = capacity;
    while (c < lengthNeeded) {
      c *= 2;
    }
    allocate(s, c, slotsInUse, longestInUse);
  }

  private void allocate(int newSlots, int newCapacity, int slotsInUse, int longestInUse) {
    // The caller may count a slot it is about to take; only existing slots hold data.
    int keepSlots = Math.min(slotsInUse, slots);
    int keepLength = Math.min(longestInUse, capacity);
    Shape shape = new Shape(newSlots, kvHeads, newCapacity, headDim);
    for (int l = 0; l < layers; l++) {
      NDArray k = manager.zeros(shape, DataType.FLOAT32);
      NDArray v = manager.zeros(shape, DataType.FLOAT32);
      if (keys[l] != null) {
        if (keepSlots > 0 && keepLength > 0) {
          NDIndex used = new NDIndex(":{}, :, :{}, :", keepSlots, keepLength);
          try (NDArray oldK = keys[l].get(used); NDArray oldV = values[l].get(used)) {
            k.set(used, oldK);
            v.set(used, oldV);
          }
        }
        keys[l].close();
        values[l].close();
      }
      keys[l] = k;
      values[l] = v;
    }
    slots = newSlots;
    capacity = newCapacity;
  }

  /** Copies the first {@code length} cached positions of slot {@code from} into slot {@code to}. */
  void move(int from, int to, int length) {
    if (from == to || length == 0) {
      return;
    }
    NDIndex src = new NDIndex("{}, :, :{}, :", from, length);
    NDIndex dst = new NDIndex("{}, :, :{}, :", to, length);
    for (int l = 0; l < layers; l++) {
      try (NDArray k = keys[l].get(src); NDArray v = values[l].get(src)) {
        keys[l].set(dst, k);
        values[l].set(dst, v);
      }
    }
  }

  /**
   * One decode step for the sequences in slots [0, n): sequence i has {@code lengths[i]} tokens
   * cached and adds one at that position.
   */
  Qwen3Model.KvSource decode(NDManager work, int[] lengths) {
    int n = lengths.length;
    long[] slotIds = new long[n];
    long[] positions = new long[n];
    int longest = 0;
    for (int i = 0; i < n; i++) {
      slotIds[i] = i;
      positions[i] = lengths[i];
      longest = Math.max(longest, lengths[i] + 1);
    }
    // Sequence i sees its own first lengths[i] + 1 positions; the rest of the slice is padding.
    float[] mask = new float[n * longest];
    for (int i = 0; i < n; i++) {
      for (int j = lengths[i] + 1; j < longest; j++) {
        mask[i * longest + j] = Qwen3Model.MASKED;
      }
    }
    NDArray slotIndex = work.create(slotIds);
    NDArray posIndex = work.create(positions);
    NDArray maskArray = work.create(mask, new Shape(n, 1, 1, 1, longest));
    NDIndex write = new NDIndex("{}, :, {}", slotIndex, posIndex);
    NDIndex read = new NDIndex(":{}, :, :{}, :", n, longest);
    return new Qwen3Model.KvSource() {
      @Override
      public NDArray[] attend(int layer, NDArray k, NDArray v) {
        // k, v: (n, kvHeads, 1, headDim); the scatter target (slot_i, :, pos_i) is (n, kvHeads,
        // headDim), one write for the whole batch.
        keys[layer].set(write, k.squeeze(2));
        values[layer].set(write, v.squeeze(2));
        return new NDArray[] {keys[layer].get(work, read), values[layer].get(work, read)};
      }

      @Override
      public NDArray mask() {
        return maskArray;
      }
    };
  }

  /**
   * A prefill chunk of {@code count} tokens for the sequence in {@code slot}, whose first
   * {@code start} tokens are already cached.
   */
  Qwen3Model.KvSource prefill(NDManager work, int slot, int start, int count) {
    int total = start + count;
    // Query i (position start + i) sees keys 0 .. start + i.
    float[] mask = new float[count * total];
    for (int i = 0; i < count; i++) {
      for (int j = start + i + 1; j < total; j++) {
        mask[i * total + j] = Qwen3Model.MASKED;
      }
    }
    NDArray maskArray = work.create(mask, new Shape(1, 1, 1, count, total));
    NDIndex write = new NDIndex("{}:{}, :, {}:{}, :", slot, slot + 1, start, total);
    NDIndex read = new NDIndex("{}:{}, :, :{}, :", slot, slot + 1, total);
    return new Qwen3Model.KvSource() {
      @Override
      public NDArray[] attend(int layer, NDArray k, NDArray v) {
        keys[layer].set(write, k);
        values[layer].set(write, v);
        return new NDArray[] {keys[layer].get(work, read), values[layer].get(work, read)};
      }

      @Override
      public NDArray mask() {
        return maskArray;
      }
    };
  }

  @Override
  public void close() {
    manager.close();
  }
}
