package io.prefixlog.tools.ui;

/**
 * What an index has read from its topic: every record, and those it could not use, counted with
 * where the last one was (never skipped silently). Each index of the UI keeps one; the pages show
 * it in their status line.
 */
final class ReadCounts {
  /** The counts at one moment. */
  record Snapshot(long records, long unreadable, String lastProblem) {
    /**
     * The status line: {@code lead} (what is read and whether it is caught up), the counts, and the
     * follower's {@code problem} when there is one ({@code ""} otherwise).
     */
    String html(String leadHtml, String problem) {
      StringBuilder b = new StringBuilder("<p class=\"status\" role=\"status\">");
      b.append(leadHtml).append(Html.count(records)).append(" records read.");
      if (unreadable > 0) {
        b.append(" <strong>")
            .append(Html.count(unreadable))
            .append(" records could not be read</strong> (last: ")
            .append(Html.text(lastProblem))
            .append(").");
      }
      if (!problem.isEmpty()) {
        b.append(" <strong>").append(Html.text(problem)).append("</strong>");
      }
      return b.append("</p>").toString();
    }
  }

  /** A problem's text: where the record is, then what is wrong (never the record's content). */
  static String where(int partition, long offset, String problem) {
    return "partition " + partition + " offset " + offset + ": " + problem;
  }

  private long records;
  private long unreadable;
  private String lastProblem = "";

  /**
   * Counts one record.
   *
   * @param problem why it cannot be used (names where it is, never its content), or null
   * @return whether it can be used
   */
  synchronized boolean read(String problem) {
    records++;
    if (problem == null) {
      return true;
    }
    unreadable++;
    lastProblem = problem;
    return false;
  }

  synchronized Snapshot snapshot() {
    return new Snapshot(records, unreadable, lastProblem);
  }
}
