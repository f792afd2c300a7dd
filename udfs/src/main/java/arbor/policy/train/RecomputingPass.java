package arbor.policy.train;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import arbor.policy.model.Qwen3Model;

/**
 * A forward and backward through the decoder whose memory grows linearly with the sequence
 * length: DJL cannot checkpoint inside one autograd graph, so each layer is its own segment.
 *
 * <p>The forward runs with autograd off and keeps, per layer, only its input and its attention
 * output (B, T, hidden) and (B, T, nH * D). The backward walks the layers from the last:
 * it recomputes the layer's MLP half from those two and back-propagates the upstream gradient
 * into the weights, the attention output and the input; recomputes q, k, v and pushes the
 * attention gradient through {@link ChunkedAttention} a query block at a time; then back
 * through the projections into the input. The input's gradient is the next layer's upstream.
 * At no time does a (heads x T x T) tensor exist, and one layer's graph at most is alive.
 */
final class RecomputingPass {

  /** What the forward kept: per-layer inputs and attention outputs, and the last layer's output. */
  record Saved(NDArray tokens, NDArray[] cosSin, NDArray[] inputs, NDArray[] attention,
      NDArray output) {}

  private final Qwen3Model model;
  private final ChunkedAttention attention;

  RecomputingPass(Qwen3Model model, int chunk) {
    this.model = model;
    this.attention = new ChunkedAttention(model, chunk);
  }

  /**
   * The decoder up to (not including) the final norm, autograd off; keeps what backward needs
   * when {@code keep}, else frees each layer's arrays as it goes (scoring only).
   */
  Saved forward(NDArray tokens, long[] positions, boolean keep) {
    NDManager work = tokens.getManager();
    int layers = model.config().numLayers();
    NDArray[] inputs = new NDArray[layers];
    NDArray[] attn = new NDArray[layers];
    try (Autograd.Scope off = Autograd.off()) {
      long b = tokens.getShape().get(0);
      long t = tokens.getShape().get(1);
      NDArray[] cosSin = model.ropeTables(work, positions, b, t);   // 2 x (B, 1, T, D)
      NDArray x = model.embed(tokens);                               // (B, T, hidden)
      for (int i = 0; i < layers; i++) {
        try (NDManager scope = work.newSubManager()) {
          // An op's result lives in its input's manager: with x in the layer's scope, the
          // layer's temporaries (norms, projections, MLP activations) go when the layer is done.
          x.attach(scope);
          NDArray[] qkv = model.queryKeyValue(i, x, cosSin);
          NDArray a = attention.forward(qkv[0], qkv[1], qkv[2]);     // (B, T, nH*D)
          NDArray next = model.afterAttention(i, x, a);              // (B, T, hidden)
          next.attach(work);
          if (keep) {
            x.attach(work);
            a.attach(work);
            inputs[i] = x;
            attn[i] = a;
          }
          x = next;
        }
      }
      return new Saved(tokens, cosSin, inputs, attn, x);
    }
  }

  /**
   * Back-propagates {@code upstream}, the loss gradient with respect to {@code saved.output()}
   * (B, T, hidden), into every weight's gradient (they accumulate). Frees the saved arrays.
   */
  void backward(Saved saved, NDArray upstream) {
    NDManager work = saved.tokens().getManager();
    NDArray g = upstream;
    for (int i = saved.inputs().length - 1; i >= 0; i--) {
      NDArray next;
      try (NDManager scope = work.newSubManager()) {
        NDArray x = inScope(Autograd.leaf(saved.inputs()[i]), scope);
        NDArray a = inScope(Autograd.leaf(saved.attention()[i]), scope);
        // 1. The MLP half: weights of o, the post-norm and the MLP; gradients of x and a.
        NDArray out;
        try (Autograd.Scope on = Autograd.on()) {
          out = model.afterAttention(i, x, a);
        }
        Autograd.backward(out, g);
        // 2. Attention, a query block at a time, into leaves q, k, v.
        NDArray[] qkv;
        try (Autograd.Scope on = Autograd.on()) {
          qkv = model.queryKeyValue(i, x, saved.cosSin());
        }
        NDArray q = inScope(Autograd.leaf(qkv[0]), scope);
        NDArray k = inScope(Autograd.leaf(qkv[1]), scope);
        NDArray v = inScope(Autograd.leaf(qkv[2]), scope);
        attention.backward(q, k, v, inScope(a.getGradient(), scope));
        // 3. q, k, v share one graph from x: one backward through their sum of products.
        NDArray joint;
        try (Autograd.Scope on = Autograd.on()) {
          joint = qkv[0].mul(inScope(q.getGradient(), scope)).sum()
              .add(qkv[1].mul(inScope(k.getGradient(), scope)).sum())
              .add(qkv[2].mul(inScope(v.getGradient(), scope)).sum());
        }
        Autograd.backward(joint, scope.ones(joint.getShape()));
        next = x.getGradient();
        next.attach(work);
      }
      saved.inputs()[i].close();
      saved.attention()[i].close();
      if (g != upstream) {
        g.close();
      }
      g = next;
    }
    try (NDManager scope = work.newSubManager()) {
      NDArray e;
      try (Autograd.Scope on = Autograd.on()) {
        e = model.embed(saved.tokens());
      }
      e.attach(scope);
      Autograd.backward(e, g);
    }
    if (g != upstream) {
      g.close();
    }
  }

  private static NDArray inScope(NDArray a, NDManager scope) {
    a.attach(scope);
    return a;
  }
}
