package io.prefixlog.tools;

import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.cli.CommandLine;
import io.prefixlog.cli.Terminal;
import io.prefixlog.cli.UsageException;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every {@code bin/prefixlog <command> ...} line the documentation shows parses with that command's
 * real options (picocli, no broker needed): renaming or removing an option a README uses fails
 * here.
 */
class DocumentedCommandLinesTest {
  private static final Pattern INVOCATION =
      Pattern.compile("bin/prefixlog\\s+([a-z][a-z-]*)([^`\\n]*)");

  @Test
  void shouldParseEveryDocumentedCommandLine() throws IOException {
    PrintStream quiet =
        new PrintStream(PrintStream.nullOutputStream(), true, StandardCharsets.UTF_8);
    Map<String, Command> commands =
        Prefixlog.commands(new Terminal(quiet, quiet, Map.of(), false)).stream()
            .collect(Collectors.toMap(Command::name, Function.identity()));
    List<String> problems = new ArrayList<>();
    int parsed = 0;
    for (Path doc : docs()) {
      for (String line : joinedLines(doc)) {
        Matcher m = INVOCATION.matcher(line);
        while (m.find()) {
          String name = m.group(1);
          Command command = commands.get(name);
          if (command == null) {
            if (!List.of("help", "completion").contains(name)) {
              problems.add(doc + ": unknown command in: " + m.group());
            }
            continue;
          }
          String[] words = words(m.group(2));
          if (name.equals("archive") && words.length > 0 && words[0].equals("maintain")) {
            // archive's one subcommand; its options are the command's
            words = java.util.Arrays.copyOfRange(words, 1, words.length);
          }
          try {
            CommandLine.parse("prefixlog " + name, command.options(), words);
            parsed++;
          } catch (UsageException e) {
            problems.add(doc.getFileName() + ": " + m.group().strip() + " -> " + e.getMessage());
          }
        }
      }
    }
    assertThat(problems).isEmpty();
    assertThat(parsed).as("documented command lines").isGreaterThanOrEqualTo(20);
  }

  /** The README files and docs of the repository. */
  private static List<Path> docs() throws IOException {
    Path root = Path.of("").toAbsolutePath().getParent();
    try (Stream<Path> files = Files.walk(root, 3)) {
      return files
          .filter(p -> p.toString().endsWith(".md"))
          .filter(p -> !p.toString().contains("/target/") && !p.toString().contains("/var/"))
          .sorted()
          .toList();
    }
  }

  /** Lines with shell continuations joined. */
  private static List<String> joinedLines(Path doc) throws IOException {
    List<String> lines = new ArrayList<>();
    StringBuilder current = new StringBuilder();
    for (String line : Files.readAllLines(doc, StandardCharsets.UTF_8)) {
      if (line.endsWith("\\")) {
        current.append(line, 0, line.length() - 1).append(' ');
        continue;
      }
      lines.add(current.append(line).toString());
      current.setLength(0);
    }
    return lines;
  }

  /**
   * The arguments of one documented invocation, as a shell would pass them: up to a comment, pipe,
   * redirection or the next command; quotes removed; {@code [optional]} brackets dropped.
   */
  static String[] words(String text) {
    List<String> words = new ArrayList<>();
    StringBuilder word = new StringBuilder();
    char quote = 0;
    boolean inWord = false;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (quote != 0) {
        if (c == quote) {
          quote = 0;
        } else {
          word.append(c);
        }
        continue;
      }
      if (c == '\'' || c == '"') {
        quote = c;
        inWord = true;
      } else if (c == '#' || c == '|' || c == '>' || c == ';' || c == '&' || c == ')') {
        break;
      } else if (c == '[' || c == ']') {
        continue;
      } else if (Character.isWhitespace(c)) {
        if (inWord) {
          words.add(word.toString());
          word.setLength(0);
          inWord = false;
        }
      } else {
        word.append(c);
        inWord = true;
      }
    }
    if (inWord) {
      words.add(word.toString());
    }
    // An elided value ("…") stands for whatever the reader puts there.
    return words.stream()
        .map(w -> w.equals("...") || w.equals("…") ? "VALUE" : w)
        .toArray(String[]::new);
  }
}
