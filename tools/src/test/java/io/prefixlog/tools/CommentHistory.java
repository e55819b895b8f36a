package io.prefixlog.tools;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds history in source comments: an issue reference, an ISO date or a commit id. A comment says
 * why, never when or in which issue; that history is git's. Only comments are read: string
 * literals, URLs and {@code sha256:} digests are not history.
 */
final class CommentHistory {
  /** "issue 19", "Issue 20's", "issues 12", "PR 7", "#27". */
  private static final Pattern ISSUE =
      Pattern.compile(
          "(?i)\\b(?:issues?|pr|pull request|ticket)\\s*#?\\s*\\d+\\b|(?<![\\w&#/])#\\d+\\b");

  /** A calendar date in ISO form: 2026-11-26. */
  private static final Pattern DATE =
      Pattern.compile("\\b(?:19|20)\\d\\d-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\\d|3[01])\\b");

  /**
   * A commit id, short or full: 7 to 40 lowercase hex digits with at least one digit and one
   * letter, standing alone (not part of a longer word or hash, not after {@code sha256:} or {@code
   * #}).
   */
  private static final Pattern COMMIT =
      Pattern.compile(
          "(?<![\\w:#/.@-])(?=[0-9a-f]{0,39}[0-9])(?=[0-9a-f]{0,39}[a-f])[0-9a-f]{7,40}(?![\\w/@-])");

  private static final Pattern URL = Pattern.compile("\\b[a-z][a-z0-9+.-]*://\\S+");

  private CommentHistory() {}

  /** One line of a comment, with its 1-based line number. */
  record CommentLine(int line, String text) {}

  /** What is wrong with one comment text: empty when it carries no history. */
  static List<String> problems(String comment) {
    String text = URL.matcher(comment).replaceAll(" ");
    List<String> problems = new ArrayList<>();
    find(ISSUE, text, "issue reference", problems);
    find(DATE, text, "date", problems);
    find(COMMIT, text, "commit id", problems);
    return problems;
  }

  private static void find(Pattern pattern, String text, String what, List<String> problems) {
    Matcher m = pattern.matcher(text);
    while (m.find()) {
      problems.add(what + " \"" + m.group() + "\"");
    }
  }

  /** The comments of a Java (or JavaScript, CSS) source: {@code //} and {@code /* *}{@code /}. */
  static List<CommentLine> cStyleComments(String source, boolean lineComments) {
    List<CommentLine> comments = new ArrayList<>();
    StringBuilder current = new StringBuilder();
    int line = 1;
    int n = source.length();
    int i = 0;
    while (i < n) {
      char c = source.charAt(i);
      char next = i + 1 < n ? source.charAt(i + 1) : 0;
      if (c == '\n') {
        line++;
        i++;
      } else if (lineComments && c == '/' && next == '/') {
        int end = source.indexOf('\n', i);
        end = end < 0 ? n : end;
        comments.add(new CommentLine(line, source.substring(i + 2, end)));
        i = end;
      } else if (c == '/' && next == '*') {
        i += 2;
        while (i < n && !(source.charAt(i) == '*' && i + 1 < n && source.charAt(i + 1) == '/')) {
          if (source.charAt(i) == '\n') {
            comments.add(new CommentLine(line, current.toString()));
            current.setLength(0);
            line++;
          } else {
            current.append(source.charAt(i));
          }
          i++;
        }
        comments.add(new CommentLine(line, current.toString()));
        current.setLength(0);
        i += 2;
      } else if (c == '"' && source.startsWith("\"\"\"", i)) {
        int end = source.indexOf("\"\"\"", i + 3);
        end = end < 0 ? n : end + 3;
        line += (int) source.substring(i, end).chars().filter(ch -> ch == '\n').count();
        i = end;
      } else if (c == '"' || c == '\'') {
        i++;
        while (i < n && source.charAt(i) != c && source.charAt(i) != '\n') {
          i += source.charAt(i) == '\\' ? 2 : 1;
        }
        i++;
      } else {
        i++;
      }
    }
    return comments;
  }

  /**
   * The {@code #} comments of a shell script, Dockerfile or YAML file: from a {@code #} at the
   * start of a line or after white space, outside quotes, to the end of the line. A shell string
   * may span lines ({@code multiLineQuotes}); a YAML line's quotes end with the line.
   */
  static List<CommentLine> hashComments(String source, boolean multiLineQuotes) {
    List<CommentLine> comments = new ArrayList<>();
    String[] lines = source.split("\n", -1);
    char quote = 0;
    for (int l = 0; l < lines.length; l++) {
      String text = lines[l];
      for (int i = 0; i < text.length(); i++) {
        char c = text.charAt(i);
        if (quote != 0) {
          if (c == '\\' && quote == '"') {
            i++;
          } else if (c == quote) {
            quote = 0;
          }
        } else if (c == '\\') {
          i++;
        } else if (c == '"' || c == '\'') {
          quote = c;
        } else if (c == '#' && (i == 0 || Character.isWhitespace(text.charAt(i - 1)))) {
          comments.add(new CommentLine(l + 1, text.substring(i + 1)));
          break;
        }
      }
      if (!multiLineQuotes) {
        quote = 0;
      }
    }
    return comments;
  }

  /** The comments of a properties file: lines that start with {@code #} or {@code !}. */
  static List<CommentLine> propertiesComments(String source) {
    List<CommentLine> comments = new ArrayList<>();
    String[] lines = source.split("\n", -1);
    for (int l = 0; l < lines.length; l++) {
      String text = lines[l].strip();
      if (text.startsWith("#") || text.startsWith("!")) {
        comments.add(new CommentLine(l + 1, text.substring(1)));
      }
    }
    return comments;
  }

  /** The comments of an XML file: {@code <!-- -->}. */
  static List<CommentLine> xmlComments(String source) {
    List<CommentLine> comments = new ArrayList<>();
    String[] lines = source.split("\n", -1);
    boolean inside = false;
    for (int l = 0; l < lines.length; l++) {
      String text = lines[l];
      int from = 0;
      StringBuilder comment = new StringBuilder();
      while (from <= text.length()) {
        if (!inside) {
          int start = text.indexOf("<!--", from);
          if (start < 0) {
            break;
          }
          inside = true;
          from = start + 4;
        } else {
          int end = text.indexOf("-->", from);
          comment.append(text, from, end < 0 ? text.length() : end).append(' ');
          if (end < 0) {
            break;
          }
          inside = false;
          from = end + 3;
        }
      }
      if (comment.length() > 0) {
        comments.add(new CommentLine(l + 1, comment.toString()));
      }
    }
    return comments;
  }
}
