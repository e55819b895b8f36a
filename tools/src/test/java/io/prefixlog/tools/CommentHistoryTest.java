package io.prefixlog.tools;

import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.tools.CommentHistory.CommentLine;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * No main source file carries history in a comment: no issue number, no date, no commit id; and a
 * comment cites only documents in the repository, docs/design.md by sections it has. Main sources
 * are everything under a module's {@code src/main}, {@code bin/}, {@code scripts/}, {@code deploy/}
 * (but its tests) and {@code docker-compose.yml}.
 */
class CommentHistoryTest {
  private static final Pattern DESIGN_CITATION = Pattern.compile("docs/design\\.md#([a-z0-9-]+)");

  @Test
  void shouldFindNoHistoryInAnyMainSourceComment() throws IOException {
    // Given
    Path root = Path.of("").toAbsolutePath().getParent();
    List<Path> sources = mainSources(root);

    Set<String> designAnchors = anchors(root.resolve("docs/design.md"));

    // When
    List<String> problems = new ArrayList<>();
    for (Path source : sources) {
      for (CommentLine comment : comments(source)) {
        String where = root.relativize(source) + ":" + comment.line() + ": ";
        for (String problem : CommentHistory.problems(comment.text())) {
          problems.add(where + problem);
        }
        if (comment.text().contains("DESIGN §")) {
          problems.add(where + "cites DESIGN.md, which is not in the repository");
        }
        Matcher citation = DESIGN_CITATION.matcher(comment.text());
        while (citation.find()) {
          if (!designAnchors.contains(citation.group(1))) {
            problems.add(where + "docs/design.md has no section #" + citation.group(1));
          }
        }
      }
    }

    // Then
    assertThat(sources).as("main sources scanned").hasSizeGreaterThan(500);
    assertThat(problems).as("history in comments (%d)", problems.size()).isEmpty();
  }

  @Test
  void shouldFlagIssueReferences() {
    assertThat(CommentHistory.problems(" the routing target of issue 17: 1 M requests"))
        .containsExactly("issue reference \"issue 17\"");
    assertThat(CommentHistory.problems(" Issue 20's goals")).hasSize(1);
    assertThat(CommentHistory.problems(" (issues #12 and #3)"))
        .containsExactly("issue reference \"issues #12\"", "issue reference \"#3\"");
    assertThat(CommentHistory.problems(" see PR 7")).hasSize(1);
  }

  @Test
  void shouldNotFlagWhatOnlyLooksLikeAnIssueReference() {
    assertThat(CommentHistory.problems(" the issue is that 3 threads compete")).isEmpty();
    assertThat(CommentHistory.problems(" renders &#39; and color #0b57d0")).isEmpty();
    assertThat(CommentHistory.problems(" see benchmarks/README.md#the-capture-side")).isEmpty();
    assertThat(CommentHistory.problems(" https://github.com/vllm-project/vllm/issues/12345"))
        .isEmpty();
  }

  @Test
  void shouldFlagDates() {
    assertThat(CommentHistory.problems(" 200 ms since 2026-11-26 (run 3)"))
        .containsExactly("date \"2026-11-26\"");
    assertThat(CommentHistory.problems(" measured on 2025-01-31")).hasSize(1);
  }

  @Test
  void shouldNotFlagWhatOnlyLooksLikeADate() {
    assertThat(CommentHistory.problems(" a time as yyyy-MM-dd HH:mm:ss")).isEmpty();
    assertThat(CommentHistory.problems(" 2020-12 JSON Schema, 100-200 ms, 1999-99-99")).isEmpty();
    assertThat(CommentHistory.problems(" https://json-schema.org/draft/2020-12-01/schema"))
        .isEmpty();
  }

  @Test
  void shouldFlagCommitIds() {
    assertThat(CommentHistory.problems(" fixed in 773edb7."))
        .containsExactly("commit id \"773edb7\"");
    assertThat(CommentHistory.problems(" (commit e625af4c0ffee8ad21ab5a4b9f3596503a1b2c3d)"))
        .hasSize(1);
  }

  @Test
  void shouldNotFlagHexThatIsNoCommitId() {
    assertThat(
            CommentHistory.problems(
                " sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"))
        .isEmpty();
    assertThat(
            CommentHistory.problems(
                " body_sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"))
        .isEmpty();
    assertThat(CommentHistory.problems(" deadbeef, 34603008, 2147483647, cafe, 0x7fffffffa"))
        .isEmpty();
    assertThat(CommentHistory.problems(" session-3f2a9c1, image@5e4f3a2b9, sha1:5e4f3a2b9"))
        .isEmpty();
  }

  @Test
  void shouldReadOnlyJavaComments() {
    // Given
    String source =
        """
        class A {
          // issue 3
          String s = "issue 4 // 2026-11-26";
          char c = '"';
          /* one
           * 2026-11-27 */
          String t = \"""
              #5 e625af4c
              \""";
          int x; // 773edb7
        }
        """;

    // When
    List<String> found =
        CommentHistory.cStyleComments(source, true).stream()
            .filter(c -> !CommentHistory.problems(c.text()).isEmpty())
            .map(c -> c.line() + ":" + CommentHistory.problems(c.text()))
            .toList();

    // Then
    assertThat(found)
        .containsExactly(
            "2:[issue reference \"issue 3\"]",
            "6:[date \"2026-11-27\"]",
            "10:[commit id \"773edb7\"]");
  }

  @Test
  void shouldReadOnlyHashComments() {
    // Given
    String script =
        """
        #!/bin/sh
        # issue 3
        echo "#4 is not a comment" '# nor 2026-11-26'
        n=$# ; v=${#x} # 773edb7
        """;

    // When
    List<CommentLine> comments = CommentHistory.hashComments(script, true);

    // Then
    assertThat(comments.stream().map(CommentLine::line)).containsExactly(1, 2, 4);
    assertThat(comments.get(2).text()).isEqualTo(" 773edb7");
  }

  @Test
  void shouldReadPropertiesAndXmlComments() {
    assertThat(CommentHistory.propertiesComments("# a\nkey=value # not\n  ! b\n"))
        .containsExactly(new CommentLine(1, " a"), new CommentLine(3, " b"));
    assertThat(CommentHistory.xmlComments("<a><!-- one\ntwo --><b/><!-- three --></a>"))
        .containsExactly(new CommentLine(1, " one "), new CommentLine(2, "two   three  "));
  }

  @Test
  void shouldTurnHeadingsIntoGithubAnchors() {
    assertThat(anchor("## Performance targets")).isEqualTo("performance-targets");
    assertThat(anchor("## Reliability and privacy")).isEqualTo("reliability-and-privacy");
    assertThat(anchor("### The capture side: the `publisher`'s interval"))
        .isEqualTo("the-capture-side-the-publishers-interval");
  }

  /** The anchors GitHub gives the headings of a Markdown file. */
  private static Set<String> anchors(Path markdown) throws IOException {
    Set<String> anchors = new HashSet<>();
    for (String line : Files.readAllLines(markdown, StandardCharsets.UTF_8)) {
      if (line.startsWith("#")) {
        anchors.add(anchor(line));
      }
    }
    return anchors;
  }

  private static String anchor(String heading) {
    return heading
        .replaceFirst("^#+\\s*", "")
        .strip()
        .toLowerCase(Locale.ROOT)
        .replaceAll("[^a-z0-9 _-]", "")
        .replace(' ', '-');
  }

  private static List<CommentLine> comments(Path source) throws IOException {
    String text = Files.readString(source, StandardCharsets.UTF_8);
    String name = source.getFileName().toString();
    if (name.endsWith(".java")) {
      return CommentHistory.cStyleComments(text, true);
    } else if (name.endsWith(".js")) {
      return CommentHistory.cStyleComments(text, true);
    } else if (name.endsWith(".css")) {
      return CommentHistory.cStyleComments(text, false);
    } else if (name.endsWith(".properties")) {
      return CommentHistory.propertiesComments(text);
    } else if (name.endsWith(".xml")) {
      return CommentHistory.xmlComments(text);
    } else if (name.endsWith(".yml") || name.endsWith(".yaml")) {
      return CommentHistory.hashComments(text, false);
    }
    return CommentHistory.hashComments(text, true);
  }

  /** Java, scripts, YAML, properties, Dockerfiles, XML: every main file that has comments. */
  private static List<Path> mainSources(Path root) throws IOException {
    try (Stream<Path> files = Files.walk(root)) {
      return files
          .filter(Files::isRegularFile)
          .filter(p -> isMain(root.relativize(p).toString().replace('\\', '/')))
          .filter(CommentHistoryTest::hasComments)
          .sorted()
          .toList();
    }
  }

  private static boolean isMain(String path) {
    if (path.startsWith(".") || path.contains("/target/") || path.startsWith("target/")) {
      return false;
    }
    if (path.contains("/src/test/") || path.startsWith("var/") || path.contains("/var/")) {
      return false;
    }
    return path.contains("/src/main/")
        || path.startsWith("bin/")
        || path.startsWith("scripts/")
        || path.startsWith("deploy/")
        || path.equals("docker-compose.yml");
  }

  private static boolean hasComments(Path p) {
    String name = p.getFileName().toString();
    if (name.equals("Dockerfile")
        || Stream.of(".java", ".js", ".css", ".sh", ".yml", ".yaml", ".properties", ".xml")
            .anyMatch(name::endsWith)) {
      return true;
    }
    if (name.contains(".")) {
      return false;
    }
    try {
      return Files.readString(p, StandardCharsets.ISO_8859_1).startsWith("#!");
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
