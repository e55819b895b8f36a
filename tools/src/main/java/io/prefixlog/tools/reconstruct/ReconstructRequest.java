package io.prefixlog.tools.reconstruct;

import io.prefixlog.archive.ArchiveSettings;
import io.prefixlog.archive.ArchivedTopic;
import io.prefixlog.core.config.CommonKeys;
import io.prefixlog.core.rebuild.RebuildScope;
import io.prefixlog.schemas.Topics;
import java.nio.file.Path;
import java.util.Objects;

/**
 * What {@link ReconstructService} rebuilds, from where, and what it does with the bodies: {@code
 * prefixlog reconstruct}'s options, typed. The input is the archive when {@code archive} is set,
 * else the dump {@code file} when set, else the deltas topic. {@link #builder()} starts from the
 * command's defaults.
 *
 * @param bootstrap Kafka bootstrap servers of the deltas (and metadata) topic
 * @param topicPrefix prefix of every topic name
 * @param file a dump of the deltas topic, {@code "-"} for standard input, or {@code null}
 * @param metadataFile a dump of the metadata topic, or {@code null}
 * @param archive the archive to rebuild from, or {@code null}
 * @param table the archived delta table, with {@code archive}
 * @param scope the sessions, chain and turn rebuilt
 * @param out the directory the verified bodies are written to, or {@code null}
 * @param print whether to print the one body of the scope on the terminal's out
 * @param allowGaps whether missing turns are no failure
 * @param quiet whether to print the summary only on failure (on err)
 * @param progress whether to show progress bars even when stderr is not a terminal
 */
public record ReconstructRequest(
    String bootstrap,
    String topicPrefix,
    String file,
    String metadataFile,
    ArchiveSettings archive,
    String table,
    RebuildScope scope,
    Path out,
    boolean print,
    boolean allowGaps,
    boolean quiet,
    boolean progress) {
  public static final String DEFAULT_BOOTSTRAP = CommonKeys.DEFAULT_BOOTSTRAP;

  public static final String DEFAULT_TABLE = ArchivedTopic.NAMESPACE + ".session_deltas";

  public ReconstructRequest {
    Objects.requireNonNull(bootstrap, "bootstrap");
    Objects.requireNonNull(topicPrefix, "topicPrefix");
    Objects.requireNonNull(scope, "scope");
    if (archive != null) {
      Objects.requireNonNull(table, "table");
    }
    if (print && scope.seq() == null) {
      throw new IllegalArgumentException("print needs a scope with a seq: it writes one body");
    }
  }

  /** A request for every turn of the deltas topic at the default bootstrap, summary on out. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Builds a request. The command line fills its fields directly (it has validated them); a caller
   * elsewhere uses the methods.
   */
  public static final class Builder {
    String bootstrap = DEFAULT_BOOTSTRAP;
    String topicPrefix = Topics.DEFAULT_PREFIX;
    String file;
    String metadataFile;
    ArchiveSettings archive;
    String table;
    RebuildScope scope = new RebuildScope(null, null, null);
    Path out;
    boolean print;
    boolean allowGaps;
    boolean quiet;
    boolean progress;

    private Builder() {}

    /** Reads the deltas topic {@code <topicPrefix>session.deltas} at {@code bootstrap}. */
    public Builder topic(String bootstrap, String topicPrefix) {
      this.bootstrap = Objects.requireNonNull(bootstrap, "bootstrap");
      this.topicPrefix = Objects.requireNonNull(topicPrefix, "topicPrefix");
      return this;
    }

    /** Reads a dump of the deltas topic instead of the topic. */
    public Builder file(Path file) {
      this.file = file.toString();
      return this;
    }

    /** Reads the archived delta table instead of the topic. */
    public Builder archive(ArchiveSettings archive) {
      this.archive = Objects.requireNonNull(archive, "archive");
      this.table = DEFAULT_TABLE;
      return this;
    }

    /** Rebuilds only these sessions, chain and turn. */
    public Builder scope(RebuildScope scope) {
      this.scope = Objects.requireNonNull(scope, "scope");
      return this;
    }

    /** Writes the verified bodies into {@code dir}. */
    public Builder out(Path dir) {
      this.out = Objects.requireNonNull(dir, "dir");
      return this;
    }

    /** Prints the scope's one body on the terminal's out (the summary then goes to err). */
    public Builder print() {
      this.print = true;
      return this;
    }

    /** Prints the summary only on failure, on err. */
    public Builder quiet() {
      this.quiet = true;
      return this;
    }

    public ReconstructRequest build() {
      return new ReconstructRequest(
          bootstrap,
          topicPrefix,
          file,
          metadataFile,
          archive,
          table,
          scope,
          out,
          print,
          allowGaps,
          quiet,
          progress);
    }
  }
}
