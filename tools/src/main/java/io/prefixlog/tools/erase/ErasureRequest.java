package io.prefixlog.tools.erase;

import io.prefixlog.archive.ArchiveSettings;
import io.prefixlog.core.config.CommonKeys;
import io.prefixlog.schemas.Topics;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * What {@link EraseService} erases and where: {@code prefixlog erase}'s options, typed. Named so
 * beside the wire type {@link io.prefixlog.schemas.control.EraseRequest}, the order this request
 * makes the service send. {@link #builder()} starts from the command's defaults.
 *
 * @param selection the sessions (and, for the KV index, the ids they may go by) and the chains;
 *     without a session when a tenant names them all
 * @param tenant a tenant whose every session is erased as well: its id (as the proxy records it,
 *     {@link TenantSessions}) and how the command line named it; null for none
 * @param bootstrap Kafka bootstrap servers
 * @param topicPrefix prefix of every topic name
 * @param applicationId the stream app's application.id (its changelog and repartition topics)
 * @param ackTimeout how long to wait for the stream app's acknowledgements
 * @param sinkTimeout how long to wait for the archive's sink to commit the sessions
 * @param keepRaw whether to leave the raw requests to the topic's retention
 * @param check whether to check that nothing is left instead of erasing
 * @param spillDirs stopped proxies' spill directories to erase from instead of Kafka; empty for
 *     none
 * @param archive the archive to erase from too, or {@code null}
 */
public record ErasureRequest(
    Selection selection,
    String bootstrap,
    String topicPrefix,
    String applicationId,
    Duration ackTimeout,
    Duration sinkTimeout,
    boolean keepRaw,
    boolean check,
    List<Path> spillDirs,
    ArchiveSettings archive,
    NamedTenant tenant) {
  public static final String DEFAULT_BOOTSTRAP = CommonKeys.DEFAULT_BOOTSTRAP;
  public static final Duration DEFAULT_ACK_TIMEOUT = Duration.ofSeconds(60);
  public static final Duration DEFAULT_SINK_TIMEOUT = Duration.ofSeconds(600);
  public static final String DEFAULT_APPLICATION_ID = "prefixlog-stream-app";

  /**
   * A tenant to erase.
   *
   * @param id its id, as the proxy records it
   * @param namedAs how the command line named it ({@code --tenant team-a})
   */
  public record NamedTenant(String id, String namedAs) {
    public NamedTenant {
      Objects.requireNonNull(id, "id");
      Objects.requireNonNull(namedAs, "namedAs");
    }
  }

  public ErasureRequest {
    Objects.requireNonNull(selection, "selection");
    if (selection.sessions().isEmpty() && tenant == null) {
      throw new IllegalArgumentException("no session to erase");
    }
    Objects.requireNonNull(bootstrap, "bootstrap");
    Objects.requireNonNull(topicPrefix, "topicPrefix");
    Objects.requireNonNull(applicationId, "applicationId");
    Objects.requireNonNull(ackTimeout, "ackTimeout");
    Objects.requireNonNull(sinkTimeout, "sinkTimeout");
    spillDirs = List.copyOf(spillDirs);
    if (check && !spillDirs.isEmpty()) {
      throw new IllegalArgumentException("a check does not look in spill directories");
    }
    if (tenant != null && !spillDirs.isEmpty()) {
      throw new IllegalArgumentException(
          "a tenant's sessions are found on the broker, not in spill directories");
    }
  }

  /**
   * This request with the tenant's sessions ({@link TenantSessions#find}) added to its selection
   * and no tenant left to find; null when there is no session at all.
   */
  ErasureRequest withTenantSessions(Map<String, String> found) {
    Map<String, String> sessions = new LinkedHashMap<>(selection.sessions());
    Set<String> kvIds = new LinkedHashSet<>(selection.kvSessionIds());
    found.forEach(sessions::putIfAbsent);
    kvIds.addAll(found.keySet());
    if (sessions.isEmpty()) {
      return null;
    }
    Builder resolved = new Builder(this);
    resolved.selection = new Selection(sessions, kvIds, selection.before());
    resolved.tenant = null;
    return resolved.build();
  }

  /** A request with the command's defaults; it needs the sessions ({@link Builder#sessions}). */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Builds a request. The command line fills its fields directly (it has validated them); a caller
   * elsewhere uses the methods.
   */
  public static final class Builder {
    Selection selection;
    String bootstrap = DEFAULT_BOOTSTRAP;
    String topicPrefix = Topics.DEFAULT_PREFIX;
    String applicationId = DEFAULT_APPLICATION_ID;
    Duration ackTimeout = DEFAULT_ACK_TIMEOUT;
    Duration sinkTimeout = DEFAULT_SINK_TIMEOUT;
    boolean keepRaw;
    boolean check;
    List<Path> spillDirs = List.of();
    ArchiveSettings archive;
    NamedTenant tenant;

    private Builder() {}

    /**
     * A builder holding {@code request}'s settings: a request that differs from it in a few is
     * built here, so that only {@link #build} lists every field.
     */
    private Builder(ErasureRequest request) {
      selection = request.selection;
      bootstrap = request.bootstrap;
      topicPrefix = request.topicPrefix;
      applicationId = request.applicationId;
      ackTimeout = request.ackTimeout;
      sinkTimeout = request.sinkTimeout;
      keepRaw = request.keepRaw;
      check = request.check;
      spillDirs = request.spillDirs;
      archive = request.archive;
      tenant = request.tenant;
    }

    /** Erases every chain of these session keys (32 lower-case hex digits each). */
    public Builder sessions(List<String> keys) {
      Map<String, String> sessions = new LinkedHashMap<>();
      for (String key : keys) {
        if (!key.matches("[0-9a-f]{32}")) {
          throw new IllegalArgumentException(
              "session " + key + ": a session_key is 32 lower-case hex digits");
        }
        sessions.putIfAbsent(key, "--session " + key);
      }
      this.selection = Selection.of(sessions, Set.of(), null);
      return this;
    }

    /** Works on the topics {@code <topicPrefix>…} at {@code bootstrap}. */
    public Builder topic(String bootstrap, String topicPrefix) {
      this.bootstrap = Objects.requireNonNull(bootstrap, "bootstrap");
      this.topicPrefix = Objects.requireNonNull(topicPrefix, "topicPrefix");
      return this;
    }

    /** Erases the sessions' archived rows too. */
    public Builder archive(ArchiveSettings archive) {
      this.archive = Objects.requireNonNull(archive, "archive");
      return this;
    }

    /** Erases from these stopped proxies' spill directories instead of Kafka. */
    public Builder spillDirs(List<Path> dirs) {
      this.spillDirs = List.copyOf(dirs);
      return this;
    }

    /** Checks that nothing of the sessions is left instead of erasing. */
    public Builder check() {
      this.check = true;
      return this;
    }

    public ErasureRequest build() {
      return new ErasureRequest(
          selection,
          bootstrap,
          topicPrefix,
          applicationId,
          ackTimeout,
          sinkTimeout,
          keepRaw,
          check,
          spillDirs,
          archive,
          tenant);
    }
  }
}
