package io.prefixlog.bridge.proxy;

import io.prefixlog.core.config.ConfigException;
import io.prefixlog.core.config.ConfigKey;
import io.prefixlog.core.config.ConfigType;
import io.prefixlog.core.config.ConfigTypes;
import io.prefixlog.core.config.ConfigValues;
import io.prefixlog.core.request.BodyRedaction;
import io.prefixlog.core.request.QueryCredentials;
import io.prefixlog.core.request.WildcardNames;
import io.prefixlog.core.session.SessionKeyDeriver;
import io.prefixlog.core.session.TenantSource;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * What the proxy records of an exchange and how: the body's capture limit, the session key's secret
 * and headers, the headers captured, the client address policy, the raw event's format, and the
 * bound of the bodies the exchanges in flight hold together ({@link CaptureMemory}), and the query
 * parameters a stored path never holds ({@link QueryCredentials}), and what a stored body loses on
 * purpose ({@link BodyRedaction}), and where a request's tenant comes from ({@link TenantSource}).
 * {@link #toString()} never shows the secret.
 */
public record CaptureConfig(
    long maxBodyBytes,
    String sessionSecret,
    List<String> sessionHeaders,
    List<String> captureHeaders,
    ClientAddrMode clientAddr,
    RawEventFormat rawEventFormat,
    long memory,
    QueryCredentials queryCredentials,
    BodyRedaction redaction,
    TenantSource tenant) {
  /** How a captured request is written to {@code requests.raw}. */
  public enum RawEventFormat {
    /** Version 2: a JSON header, then the body's exact bytes (no escaping, no base64). */
    FRAMED,
    /** Version 1: one JSON object, the body a string; what stream apps before framing read. */
    JSON
  }

  /** How the client address is written into the event. */
  public enum ClientAddrMode {
    /** As the proxy saw it. */
    FULL,
    /** IPv4 to its /24, IPv6 to its /48 network. */
    TRUNCATE,
    /** A keyed hash (the session secret), so equal addresses stay comparable. */
    HASH,
    /** Left out. */
    OMIT
  }

  private static final ConfigType<List<String>> HEADER_NAMES =
      ConfigTypes.strings(CaptureConfig::headerNames, "header names, comma separated");

  public static final ConfigKey<Long> MAX_BODY_BYTES =
      ConfigKey.of("PREFIXLOG_MAX_BODY_BYTES", ConfigTypes.size(1, 1L << 30))
          .defaultValue(16L << 20)
          .doc(
              "capture limit (the stream app's too); longer bodies are forwarded whole and"
                  + " recorded truncated");

  public static final ConfigKey<String> SESSION_SECRET =
      ConfigKey.of("PREFIXLOG_SESSION_SECRET", ConfigTypes.text())
          .defaultValue(SessionKeyDeriver.DEV_SECRET)
          .documentedDefault("development secret, on a loopback `PREFIXLOG_PROXY_HOST` only")
          .secret()
          .doc(
              "HMAC key of session keys, ≥ 16 bytes; the same as `replay`'s. On any other address,"
                  + " unset, the development secret or a placeholder (`change-me`, `example`, …)"
                  + " is refused at start (exit 2, naming the variable)");

  public static final ConfigKey<List<String>> SESSION_HEADERS =
      ConfigKey.of("PREFIXLOG_SESSION_HEADERS", HEADER_NAMES)
          .defaultValue(SessionKeyDeriver.DEFAULT_HEADERS)
          .doc("session headers, in the order tried; credential headers are refused");

  public static final ConfigKey<List<String>> CAPTURE_HEADERS =
      ConfigKey.of("PREFIXLOG_CAPTURE_HEADERS", HEADER_NAMES)
          .defaultValue(
              List.of(
                  "x-request-id",
                  "x-forwarded-for",
                  "x-forwarded-proto",
                  "x-forwarded-host",
                  "x-real-ip",
                  "forwarded",
                  "openai-organization",
                  "openai-project"))
          .doc(
              "headers captured; credential headers are refused. A session header is captured"
                  + " only when named here, and its value then sits beside the session key that is"
                  + " to hide it");

  public static final ConfigKey<ClientAddrMode> CLIENT_ADDR =
      ConfigKey.of("PREFIXLOG_CLIENT_ADDR", ConfigTypes.oneOf(ClientAddrMode.class))
          .defaultValue(ClientAddrMode.FULL)
          .doc(
              "`full`, `truncate` (IPv4 /24, IPv6 /48), `hash` (keyed with the session secret) or"
                  + " `omit`; applies to `client_addr` and to every address in the captured"
                  + " forwarding headers (`ClientAddresses.ADDRESS_HEADERS`: `X-Forwarded-For`,"
                  + " `X-Real-IP`, `Forwarded`'s `for=`/`by=`, `True-Client-IP`,"
                  + " `CF-Connecting-IP`, …; `omit` drops them). Events posted to the ingest"
                  + " endpoint are stored as the middleware wrote them");

  public static final ConfigKey<RawEventFormat> RAW_EVENT_FORMAT =
      ConfigKey.of("PREFIXLOG_RAW_EVENT_FORMAT", ConfigTypes.oneOf(RawEventFormat.class))
          .defaultValue(RawEventFormat.FRAMED)
          .doc(
              "how captured requests are written to `requests.raw`: `framed` (version 2: a JSON"
                  + " header, then the body's exact bytes, neither escaped nor base64; the stream"
                  + " app checks them where they lie) or `json` (version 1: one JSON object with"
                  + " the body as a string, the form kcat and middlewares write). Stream apps"
                  + " read both; set `json` while stream apps older than framing still run (a"
                  + " rolling upgrade: stream apps first, then bridges)");

  /**
   * A third of the heap by default: with the publisher's queue (256 MiB) that leaves the image's
   * 1.5 GiB heap (2 GiB container) more than a third for the rest. Without a bound, 48 bodies of 4
   * MiB in flight against an engine that thought for 5 s took a bridge of 128 MiB down with an
   * OutOfMemoryError, and every exchange in flight and every event not yet published with it
   * (CaptureMemoryIT).
   */
  public static final ConfigKey<Long> MEMORY =
      ConfigKey.of("PREFIXLOG_PROXY_CAPTURE_MEMORY", ConfigTypes.size(1 << 20, 64L << 30))
          .defaultValue(Math.max(1L << 20, Runtime.getRuntime().maxMemory() / 3))
          .documentedDefault(
              "a third of the JVM's maximum heap (about 490 MiB in the image: a third of its 1.5 GiB heap less one survivor space)")
          .doc(
              "bound of the request bodies the exchanges in flight hold on the heap together (each"
                  + " from its first byte until its exchange ends); beyond it a body's capture is"
                  + " let go and its exchange counted dropped (capture_memory), while the exchange"
                  + " itself is proxied as always. Streamed responses collected whole for HTTP/1.0"
                  + " clients (which have no chunked encoding) are held inside it too: one that"
                  + " does not fit is answered 502 (`http10_response_too_large`)");

  public static final ConfigKey<QueryCredentials> QUERY_CREDENTIALS = QueryCredentials.SETTING;

  public static final ConfigKey<WildcardNames> REDACT_FIELDS = BodyRedaction.FIELDS;

  public static final ConfigKey<List<Pattern>> REDACT_PATTERNS = BodyRedaction.PATTERNS;

  public static final ConfigKey<TenantSource> TENANT = TenantSource.SETTING;

  public CaptureConfig {
    int secretBytes = sessionSecret.getBytes(StandardCharsets.UTF_8).length;
    if (secretBytes < 16) {
      throw new ConfigException(
          SESSION_SECRET.name() + ": expected at least 16 bytes, got " + secretBytes);
    }
    sessionHeaders = List.copyOf(sessionHeaders);
    captureHeaders = List.copyOf(captureHeaders);
    if (tenant.header() != null && HeaderPolicy.isSecret(tenant.header())) {
      // Its value would be recorded as the tenant id when it reads as a name.
      throw new ConfigException(
          TENANT.name()
              + " names '"
              + tenant.header()
              + "', a credential header: use `credential` to key tenants by a credential");
    }
    if (tenant.header() != null && sessionHeaders.contains(tenant.header())) {
      throw new ConfigException(
          TENANT.name()
              + " names '"
              + tenant.header()
              + "', a session header in "
              + SESSION_HEADERS.name()
              + ": a tenant is not a session");
    }
  }

  static CaptureConfig from(ConfigValues values) {
    return new CaptureConfig(
        values.get(MAX_BODY_BYTES),
        values.get(SESSION_SECRET),
        values.get(SESSION_HEADERS),
        values.get(CAPTURE_HEADERS),
        values.get(CLIENT_ADDR),
        values.get(RAW_EVENT_FORMAT),
        values.get(MEMORY),
        values.get(QUERY_CREDENTIALS),
        BodyRedaction.of(values.get(REDACT_FIELDS), values.get(REDACT_PATTERNS)),
        values.get(TENANT));
  }

  /** True when no secret was configured and the development default is in use. */
  public boolean usesDevSecret() {
    return sessionSecret.equals(SessionKeyDeriver.DEV_SECRET);
  }

  @Override
  public String toString() {
    return "CaptureConfig[maxBodyBytes="
        + maxBodyBytes
        + ", sessionSecret="
        + SESSION_SECRET.show(sessionSecret)
        + ", sessionHeaders="
        + sessionHeaders
        + ", captureHeaders="
        + captureHeaders
        + ", clientAddr="
        + clientAddr
        + ", rawEventFormat="
        + rawEventFormat
        + ", memory="
        + memory
        + ", queryCredentials="
        + queryCredentials
        + ", redaction="
        + redaction
        + ", tenant="
        + tenant
        + "]";
  }

  /**
   * HTTP header names, lower-cased and deduplicated; a credential header (Authorization, API key,
   * token, secret, cookie) is refused, so it can never be captured or become a session key.
   */
  private static List<String> headerNames(String key, List<String> names) {
    List<String> result = new ArrayList<>();
    for (String name : names) {
      String lower = name.trim().toLowerCase(Locale.ROOT);
      if (lower.isEmpty()) {
        continue;
      }
      if (!lower.matches("[0-9a-z!#$%&'*+.^_`|~-]+")) {
        throw new ConfigException(key + ": '" + name + "' is not an HTTP header name");
      }
      if (HeaderPolicy.isReserved(lower)) {
        throw new ConfigException(
            key + " names '" + lower + "', the header the proxy records a request's tenant in");
      }
      if (HeaderPolicy.isSecret(lower)) {
        throw new ConfigException(
            key
                + " names '"
                + lower
                + "', a credential header: Authorization, API-key, token, secret and cookie"
                + " headers are never captured");
      }
      if (!result.contains(lower)) {
        result.add(lower);
      }
    }
    return List.copyOf(result);
  }
}
