package io.prefixlog.archive.maintain;

import java.io.IOException;
import java.util.Objects;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.exceptions.ValidationException;

/**
 * A maintenance step of one table failed. The message names the table and the step and says what is
 * left: every step commits atomically, so a failed step changed nothing that readers see, and what
 * earlier steps (or earlier batches of the compaction) committed stays.
 */
public final class MaintenanceFailure extends IOException {
  private static final long serialVersionUID = 1L;

  private final String table;
  private final String step;

  MaintenanceFailure(String table, String step, String message, Throwable cause) {
    super(table + ": " + step + ": " + message, cause);
    this.table = Objects.requireNonNull(table, "table");
    this.step = Objects.requireNonNull(step, "step");
  }

  /** A failure of {@code step}, with what to do about it when the cause says. */
  static MaintenanceFailure of(String table, String step, Throwable cause) {
    String what =
        cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
    if (cause instanceof ValidationException || cause instanceof CommitFailedException) {
      what +=
          " (another writer changed these files meanwhile, e.g. an erase or a second maintain:"
              + " this step's last commit was refused and its new files deleted; run maintain"
              + " again)";
    } else if (cause instanceof NotFoundException) {
      what += " (a file the table references is missing from the bucket)";
    }
    return new MaintenanceFailure(table, step, what, cause);
  }

  /** The table, {@code namespace.name}. */
  public String table() {
    return table;
  }

  /** The step that failed ({@code load}, or a {@link MaintenancePolicy.Step#id()}). */
  public String step() {
    return step;
  }
}
