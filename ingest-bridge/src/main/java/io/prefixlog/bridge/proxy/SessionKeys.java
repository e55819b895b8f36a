package io.prefixlog.bridge.proxy;

import io.prefixlog.core.session.BodyFields;
import io.prefixlog.core.session.SessionKey;
import io.prefixlog.core.session.SessionKeyDeriver;
import io.prefixlog.core.session.TenantSource;
import io.vertx.core.MultiMap;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The session key of a request (header order, body fields, the conversation's start, fallback
 * tuple: {@link SessionKeyDeriver}), the same wherever it is derived: on an event loop when the
 * proxy must send {@code X-Session-ID} upstream, otherwise on the publisher thread. The fallback
 * tuple's address follows {@code PREFIXLOG_CLIENT_ADDR} ({@link ClientAddresses#forSessionKey}),
 * and its namespace is the request's tenant's ({@code PREFIXLOG_TENANT}, {@link TenantSource}).
 * Thread-safe.
 */
final class SessionKeys {
  private final SessionKeyDeriver deriver;
  private final ClientAddresses addresses;
  private final List<String> headerNames;
  private final TenantSource tenants;

  SessionKeys(
      SessionKeyDeriver deriver,
      ClientAddresses addresses,
      List<String> sessionHeaders,
      TenantSource tenants) {
    this.deriver = deriver;
    this.addresses = addresses;
    this.tenants = tenants;
    List<String> names = new ArrayList<>(sessionHeaders);
    names.addAll(tenants.headerNames());
    this.headerNames = List.copyOf(names);
  }

  /** Keyed with {@code PREFIXLOG_SESSION_SECRET}, trying {@code PREFIXLOG_SESSION_HEADERS}. */
  static SessionKeys of(CaptureConfig capture, ClientAddresses addresses) {
    return new SessionKeys(
        new SessionKeyDeriver(
            capture.sessionSecret().getBytes(StandardCharsets.UTF_8), capture.sessionHeaders()),
        addresses,
        capture.sessionHeaders(),
        capture.tenant());
  }

  /**
   * The request's headers a key is derived from, by lower-case name: the session headers and those
   * its tenant is read from. They never leave the key's derivation.
   */
  Map<String, String> headers(MultiMap requestHeaders) {
    return HeaderPolicy.lowerCase(requestHeaders, headerNames);
  }

  /**
   * The body's fields for its session key: the conversation's start is decoded and digested only
   * when it can pick the key, not under a session header.
   *
   * @param sessionHeaders the request's session headers, lower-case names
   * @param length how many bytes of {@code body} hold it
   */
  BodyFields fields(Map<String, String> sessionHeaders, byte[] body, int length) {
    return deriver.hasSessionHeader(sessionHeaders)
        ? BodyFields.readTopLevel(body, 0, length)
        : BodyFields.read(body, 0, length);
  }

  SessionKey key(
      Map<String, String> sessionHeaders, BodyFields fields, String clientAddr, String userAgent) {
    return key(tenant(sessionHeaders), sessionHeaders, fields, clientAddr, userAgent);
  }

  /** The key of a request of {@code tenant} ({@link #tenant}; null: none). */
  SessionKey key(
      String tenant,
      Map<String, String> sessionHeaders,
      BodyFields fields,
      String clientAddr,
      String userAgent) {
    return deriver.derive(
        tenant, sessionHeaders, fields, addresses.forSessionKey(clientAddr), userAgent);
  }

  /** Whether requests have tenants ({@code PREFIXLOG_TENANT} is not {@code none}). */
  boolean tenanted() {
    return tenants.enabled();
  }

  /** The tenant of a request with these {@link #headers}, or null. */
  String tenant(Map<String, String> headers) {
    return tenants.tenantOf(headers, deriver);
  }
}
