package arbor.rlm.policy.endpoint;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.IntFunction;

/**
 * A real HTTP server on the loopback interface that answers one API path with scripted replies,
 * attempt by attempt, and keeps every request it got. The SDK clients under test talk to it as
 * they would to the real service.
 */
public final class LoopbackApi implements AutoCloseable {

  /** One scripted answer: status, extra headers, JSON body, and how long to wait first. */
  public record Reply(int status, Map<String, String> headers, String body, long delayMillis) {
    public static Reply ok(String body) {
      return new Reply(200, Map.of(), body, 0);
    }

    /** A chat-completions answer whose assistant message is {@code content}. */
    public static Reply chat(String content) {
      return ok(chatCompletion(content));
    }
  }

  /** The body of a chat-completions answer whose assistant message is {@code content}. */
  public static String chatCompletion(String content) {
    return """
        {"id": "chatcmpl-1", "object": "chat.completion", "created": 1764460800,
         "model": "qwen3-4b", "choices": [{"index": 0, "finish_reason": "stop", "logprobs": null,
         "message": {"role": "assistant", "content": %s, "refusal": null}}],
         "usage": {"prompt_tokens": 20, "completion_tokens": 7, "total_tokens": 27}}"""
        .formatted(com.fasterxml.jackson.databind.node.TextNode.valueOf(content).toString());
  }

  /** What the client sent; header names in lower case. */
  public record Request(String method, String path, Map<String, List<String>> headers, JsonNode body) {}

  private final HttpServer server;
  private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
  public final List<Request> requests = new CopyOnWriteArrayList<>();

  /** Serves {@code path}; {@code script} gives the reply to attempt n (0-based). */
  public LoopbackApi(String path, IntFunction<Reply> script) throws IOException {
    this(path, (attempt, request) -> script.apply(attempt));
  }

  /**
   * Serves {@code path}, each reply chosen from what was asked ({@code script} sees the request):
   * for clients that send many conversations at once, whose order of arrival is not fixed.
   */
  public static LoopbackApi answering(String path, Function<Request, Reply> script) throws IOException {
    return new LoopbackApi(path, (attempt, request) -> script.apply(request));
  }

  private LoopbackApi(String path, BiFunction<Integer, Request, Reply> script) throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    // Concurrent handlers: a reply held back to provoke a timeout must not block the retry.
    server.setExecutor(threads);
    server.createContext(path, exchange -> answer(exchange, script));
    server.start();
  }

  /** The server's root, e.g. {@code http://127.0.0.1:41234}. */
  public String root() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  private void answer(HttpExchange exchange, BiFunction<Integer, Request, Reply> script) throws IOException {
    byte[] in = exchange.getRequestBody().readAllBytes();
    int attempt;
    Request request;
    synchronized (requests) {
      attempt = requests.size();
      Map<String, List<String>> headers = new java.util.TreeMap<>();
      exchange.getRequestHeaders().forEach((k, v) -> headers.put(k.toLowerCase(java.util.Locale.ROOT), v));
      request = new Request(exchange.getRequestMethod(), exchange.getRequestURI().getPath(),
          headers, new ObjectMapper().readTree(in));
      requests.add(request);
    }
    Reply reply = script.apply(attempt, request);
    try {
      Thread.sleep(reply.delayMillis());
      byte[] out = reply.body().getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", "application/json");
      reply.headers().forEach((k, v) -> exchange.getResponseHeaders().set(k, v));
      exchange.sendResponseHeaders(reply.status(), out.length);
      try (OutputStream os = exchange.getResponseBody()) {
        os.write(out);
      }
    } catch (InterruptedException | IOException e) {
      // The client gave up (timeout) and closed the connection: nothing to answer.
    } finally {
      exchange.close();
    }
  }

  @Override
  public void close() {
    server.stop(0);
    threads.shutdownNow();
  }
}
