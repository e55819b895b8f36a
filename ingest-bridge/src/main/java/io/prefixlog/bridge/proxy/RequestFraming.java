package io.prefixlog.bridge.proxy;

import io.vertx.core.MultiMap;
import io.vertx.core.http.HttpVersion;
import java.util.List;

/**
 * Refuses request framing a proxy must not pass on (RFC 9112 §6): a request smuggled past a proxy
 * hides in a body whose end the proxy and the engine see at different places.
 *
 * <p>Netty's decoder already refuses what it cannot frame (duplicate or malformed {@code
 * Content-Length}, bare-LF line ends, whitespace before a colon, oversized chunk sizes) and, for a
 * request with both {@code Transfer-Encoding: chunked} and {@code Content-Length}, frames it by the
 * chunks and drops the length (§6.3), so the engine gets one chunked request without a length. What
 * it passes on and this class refuses is any other {@code Transfer-Encoding}: a coding other than a
 * lone {@code chunked} ({@code xchunked}, {@code chunked, identity}, {@code gzip, chunked}, {@code
 * identity}), the header twice, or any of it in an HTTP/1.0 request (§6.1: faulty framing). No
 * client of an LLM engine sends those; an engine behind the proxy might frame them another way.
 * {@code RequestSmugglingIT} sends each over a raw socket to an upstream that parses leniently.
 */
final class RequestFraming {
  static final String TRANSFER_ENCODING_IN_HTTP_1_0 = "transfer_encoding_in_http_1_0";
  static final String UNSUPPORTED_TRANSFER_ENCODING = "unsupported_transfer_encoding";

  private RequestFraming() {}

  /** Why the request's framing is refused, or null when it is not. */
  static String problem(HttpVersion version, MultiMap headers) {
    List<String> codings = headers.getAll("transfer-encoding");
    if (codings.isEmpty()) {
      return null;
    }
    if (version == HttpVersion.HTTP_1_0) {
      return TRANSFER_ENCODING_IN_HTTP_1_0;
    }
    if (codings.size() != 1 || !codings.get(0).trim().equalsIgnoreCase("chunked")) {
      return UNSUPPORTED_TRANSFER_ENCODING;
    }
    return null;
  }
}
