package io.prefixlog.streams.query;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Optional;

/**
 * {@code GET /state/sessions/{session_key}} on the stream app's metrics port: parses the request,
 * checks the token, and asks a {@link Source} (the local store or the instance holding the key).
 * Read-only; answers JSON ({@link StateAnswer}), never a body.
 */
public final class StateEndpoint implements HttpHandler {
  /** The route's path prefix on the metrics server. */
  public static final String PATH = "/state/sessions/";

  /**
   * Set on a query one instance forwards to another: the receiver answers from its own store or
   * says why not, and never forwards again (one hop, no loops while ownership moves).
   */
  public static final String FORWARDED_HEADER = "X-Prefixlog-Forwarded";

  /** Session keys are HMAC hex in practice; this bounds what a request can make the server hold. */
  static final int MAX_KEY_LENGTH = 512;

  /** Where an answer comes from. */
  @FunctionalInterface
  public interface Source {
    /**
     * @param forwarded true when another instance forwarded the query: answer locally or say why
     */
    StateAnswer query(String sessionKey, boolean forwarded);
  }

  private final Source source;
  private final byte[] token;

  /**
   * @param token the bearer token every query must carry, or null (loopback only: the config
   *     refuses state queries beyond loopback without one)
   */
  public StateEndpoint(Source source, String token) {
    this.source = source;
    this.token = token == null ? null : token.getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      StateAnswer answer =
          answer(
              exchange.getRequestMethod(),
              exchange.getRequestURI().getRawPath(),
              exchange.getRequestHeaders().getFirst("Authorization"),
              exchange.getRequestHeaders().getFirst(FORWARDED_HEADER) != null);
      exchange.getResponseHeaders().set("Content-Type", "application/json");
      exchange.getResponseHeaders().set("Cache-Control", "no-store");
      if (answer.status() == 405) {
        exchange.getResponseHeaders().set("Allow", "GET");
      }
      exchange.sendResponseHeaders(answer.status(), answer.body().length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(answer.body());
      }
    }
  }

  /** The answer to one request: pure, so that the rules are tested without a server. */
  StateAnswer answer(String method, String rawPath, String authorization, boolean forwarded) {
    if (!"GET".equals(method)) {
      return StateAnswer.problem(
          405, null, StateAnswer.METHOD_NOT_ALLOWED, "the state queries are read-only: GET only");
    }
    if (!authorized(authorization)) {
      return StateAnswer.problem(
          401,
          null,
          StateAnswer.UNAUTHORIZED,
          "send Authorization: Bearer with PREFIXLOG_STATE_TOKEN");
    }
    Optional<String> key = sessionKey(rawPath);
    if (key.isEmpty()) {
      return StateAnswer.problem(
          400,
          null,
          StateAnswer.BAD_REQUEST,
          "the path is "
              + PATH
              + "{session_key}: one URL-encoded key of 1 to "
              + MAX_KEY_LENGTH
              + " characters, without '/'");
    }
    return source.query(key.get(), forwarded);
  }

  /**
   * The path that asks for {@code sessionKey}: the one form {@link #sessionKey} reads back (a space
   * as %20, never '+', which the parser keeps as a plus), used by forwarding instances and the UI.
   */
  public static String pathOf(String sessionKey) {
    return PATH + URLEncoder.encode(sessionKey, StandardCharsets.UTF_8).replace("+", "%20");
  }

  /** The session key a path names, or empty when it names none (or more than one segment). */
  static Optional<String> sessionKey(String rawPath) {
    if (rawPath == null || !rawPath.startsWith(PATH)) {
      return Optional.empty();
    }
    String encoded = rawPath.substring(PATH.length());
    if (encoded.isEmpty() || encoded.indexOf('/') >= 0) {
      return Optional.empty();
    }
    String key;
    try {
      // A '+' in a path is a plus, not a space: decode it as itself.
      key = URLDecoder.decode(encoded.replace("+", "%2B"), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
    if (key.isEmpty() || key.length() > MAX_KEY_LENGTH || key.indexOf('/') >= 0) {
      return Optional.empty();
    }
    return Optional.of(key);
  }

  private boolean authorized(String authorization) {
    if (token == null) {
      return true;
    }
    if (authorization == null || !authorization.startsWith("Bearer ")) {
      return false;
    }
    byte[] given = authorization.substring("Bearer ".length()).getBytes(StandardCharsets.UTF_8);
    return MessageDigest.isEqual(given, token);
  }
}
