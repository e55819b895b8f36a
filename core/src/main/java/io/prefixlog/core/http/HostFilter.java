package io.prefixlog.core.http;

import com.sun.net.httpserver.Filter;
import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * {@link HostCheck} in front of every context of a JDK {@code HttpServer} (the metrics server, the
 * UI): a refused request gets 403 with the reason, and is counted; the handler never sees it.
 */
public final class HostFilter extends Filter {
  private final HostCheck check;
  private final Consumer<HostCheck.Reason> refused;

  /**
   * @param refused counts a refusal (the metrics server's counter, the UI's log line)
   */
  public HostFilter(HostCheck check, Consumer<HostCheck.Reason> refused) {
    this.check = check;
    this.refused = refused;
  }

  @Override
  public void doFilter(HttpExchange exchange, Chain chain) throws IOException {
    Optional<HostCheck.Reason> reason =
        check.refusal(
            exchange.getRequestHeaders().getFirst("Host"),
            exchange.getRequestHeaders().getFirst("Origin"));
    if (reason.isEmpty()) {
      chain.doFilter(exchange);
      return;
    }
    refused.accept(reason.get());
    byte[] body = reason.get().body().getBytes(StandardCharsets.UTF_8);
    try (exchange) {
      exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
      exchange.sendResponseHeaders(403, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    }
  }

  @Override
  public String description() {
    return "Host and Origin check";
  }
}
