package io.prefixlog.core.session;

import io.prefixlog.core.config.ConfigException;
import io.prefixlog.core.config.ConfigKey;
import io.prefixlog.core.config.ConfigType;
import io.prefixlog.schemas.request.RawRequestEvent;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Where a request's tenant comes from ({@code PREFIXLOG_TENANT}): nowhere ({@code none}), a header
 * the gateway in front sets ({@code header:<name>}), or the request's credential ({@code
 * credential}). The tenant namespaces the request's session key ({@link SessionKeyDeriver#derive}),
 * so the same session id sent by two tenants names two sessions, and no client can add turns to
 * another tenant's session by guessing or learning its id.
 *
 * <p>A tenant id is a {@linkplain #isTenantId name}: a header's value when it is one, else {@code
 * h-} and the keyed hash of the value; for a credential, always {@code c-} and the keyed hash of
 * the credential (the HMAC of {@link SessionKeyDeriver}), so the credential itself never leaves the
 * request. A request without the header or the credential has no tenant: its keys are those of a
 * deployment without tenants.
 *
 * @param header the lower-case header the tenant is read from, or null
 * @param credential whether the tenant is the hash of the request's credential
 */
public record TenantSource(String header, boolean credential) {
  /** No tenants: every session key as without them. */
  public static final TenantSource NONE = new TenantSource(null, false);

  /** The headers a credential is sent in, first found first: OpenAI's, Anthropic's, Azure's. */
  public static final List<String> CREDENTIAL_HEADERS =
      List.of("authorization", "x-api-key", "api-key");

  /**
   * The captured header a request's tenant id is recorded under, in the raw event's {@code headers}
   * and from there in its delta record: the proxy writes it, never a client.
   */
  public static final String RECORDED_HEADER = RawRequestEvent.TENANT_HEADER;

  /** 96 bits of a keyed hash: no two credentials of a fleet share a tenant. */
  private static final int HASH_HEX_CHARS = 24;

  private static final Pattern TENANT_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");

  public static final ConfigKey<TenantSource> SETTING =
      ConfigKey.of("PREFIXLOG_TENANT", new Type())
          .defaultValue(NONE)
          .doc(
              "where a request's tenant comes from: `none`, `header:<name>` (a header the gateway"
                  + " in front sets or overwrites: its value when it is a name of up to 64"
                  + " letters, digits, `.`, `_` and `-`, else `h-` and its keyed hash) or"
                  + " `credential` (`c-` and a keyed hash of the Authorization, x-api-key or"
                  + " api-key header; the credential is never stored). Session keys are"
                  + " namespaced by tenant: the same session id in two tenants is two sessions,"
                  + " and the tenant is recorded as the captured header `x-prefixlog-tenant`."
                  + " A request without one has no tenant (counted as"
                  + " prefixlog_proxy_tenant_missing_total). Turning it on starts new sessions"
                  + " for conversations under way");

  public TenantSource {
    if (header != null && credential) {
      throw new IllegalArgumentException("a tenant comes from a header or a credential, not both");
    }
  }

  /** Whether requests have tenants at all. */
  public boolean enabled() {
    return header != null || credential;
  }

  /** The lower-case headers {@link #tenantOf} reads. */
  public List<String> headerNames() {
    return header != null ? List.of(header) : credential ? CREDENTIAL_HEADERS : List.of();
  }

  /**
   * The request's tenant id, or null when it has none.
   *
   * @param headers request headers with lower-case names (at least {@link #headerNames})
   * @param keys keys the hashes with the deployment's session secret
   */
  public String tenantOf(Map<String, String> headers, SessionKeyDeriver keys) {
    if (header != null) {
      String value = headers.get(header);
      return value == null || value.isBlank() ? null : ofHeaderValue(value, keys);
    }
    if (credential) {
      for (String name : CREDENTIAL_HEADERS) {
        String value = headers.get(name);
        if (value != null && !value.isBlank()) {
          return ofCredential(value, keys);
        }
      }
    }
    return null;
  }

  /** The id of the tenant a tenant header with this value names. */
  public static String ofHeaderValue(String value, SessionKeyDeriver keys) {
    String trimmed = value.strip();
    return isTenantId(trimmed)
        ? trimmed
        : "h-" + keys.keyedHash("tenant-header", trimmed, HASH_HEX_CHARS);
  }

  /** The id of the tenant of this credential, with or without its {@code Bearer} scheme. */
  public static String ofCredential(String credential, SessionKeyDeriver keys) {
    return "c-" + keys.keyedHash("tenant-credential", bare(credential), HASH_HEX_CHARS);
  }

  /** Whether {@code id} can name a tenant: 1 to 64 letters, digits, dots, underscores, hyphens. */
  public static boolean isTenantId(String id) {
    return id != null && TENANT_ID.matcher(id).matches();
  }

  /**
   * The credential without its scheme, so that one key sent as {@code Authorization: Bearer k} and
   * as {@code x-api-key: k} is one tenant.
   */
  private static String bare(String credential) {
    String trimmed = credential.strip();
    int space = trimmed.indexOf(' ');
    return space > 0 && trimmed.substring(0, space).equalsIgnoreCase("bearer")
        ? trimmed.substring(space + 1).strip()
        : trimmed;
  }

  @Override
  public String toString() {
    return header != null ? "header:" + header : credential ? "credential" : "none";
  }

  /** {@code none}, {@code header:<name>} or {@code credential}. */
  private static final class Type implements ConfigType<TenantSource> {
    @Override
    public TenantSource parse(String key, String raw) {
      String value = raw.strip();
      if (value.isEmpty() || value.equalsIgnoreCase("none")) {
        return NONE;
      }
      if (value.equalsIgnoreCase("credential")) {
        return new TenantSource(null, true);
      }
      if (value.regionMatches(true, 0, "header:", 0, 7)) {
        String name = value.substring(7).strip().toLowerCase(Locale.ROOT);
        if (!name.matches("[0-9a-z!#$%&'*+.^_`|~-]+")) {
          throw new ConfigException(key + ": '" + name + "' is not an HTTP header name");
        }
        if (CREDENTIAL_HEADERS.contains(name) || name.equals("cookie")) {
          throw new ConfigException(
              key + ": '" + name + "' holds a credential; use `credential` to key tenants by it");
        }
        return new TenantSource(name, false);
      }
      throw new ConfigException(
          key + ": expected `none`, `header:<name>` or `credential`, got '" + raw + "'");
    }

    @Override
    public String format(TenantSource value) {
      return value.toString();
    }

    @Override
    public String describe() {
      return "`none`, `header:<name>` or `credential`";
    }
  }
}
