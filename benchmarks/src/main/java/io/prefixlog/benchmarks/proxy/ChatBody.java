package io.prefixlog.benchmarks.proxy;

import java.nio.charset.StandardCharsets;

/**
 * The benchmark's request: an OpenAI chat body of exactly the wanted size, a system prompt and a
 * few turns of plain text, like the 20 KB requests of the performance anchors.
 */
final class ChatBody {
  private static final String TEXT =
      "The proxy forwards every byte of the request and the response, captures the body while it"
          + " flows and hands the event to Kafka off the request path. ";

  private ChatBody() {}

  static byte[] of(int bytes) {
    String head =
        "{\"model\":\"prefixlog-demo\",\"messages\":[{\"role\":\"system\",\"content\":\"You are a"
            + " helpful assistant.\"},{\"role\":\"user\",\"content\":\"";
    String tail = "\"}],\"temperature\":0.7,\"max_tokens\":256}";
    int fill = bytes - head.length() - tail.length();
    if (fill < 0) {
      throw new IllegalArgumentException("a chat body needs at least " + (bytes - fill) + " bytes");
    }
    StringBuilder body = new StringBuilder(bytes).append(head);
    while (fill > 0) {
      int n = Math.min(fill, TEXT.length());
      body.append(TEXT, 0, n);
      fill -= n;
    }
    return body.append(tail).toString().getBytes(StandardCharsets.US_ASCII);
  }
}
