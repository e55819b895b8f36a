package io.prefixlog.tools.settings;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The READMEs' settings tables are the services' descriptor tables: each block between {@code <!--
 * settings:NAME -->} and {@code <!-- /settings:NAME -->} must equal {@code
 * ConfigDef.markdownTable()} of that service, and every service has at least one. After changing a
 * setting, {@code mvn -pl tools test -Dtest=SettingsTablesTest
 * -Dprefixlog.writeSettingsTables=true} rewrites the blocks (then read the diff).
 */
class SettingsTablesTest {
  private static final List<Path> READMES =
      List.of(
          Path.of("../README.md"),
          Path.of("../ingest-bridge/README.md"),
          Path.of("../stream-app/README.md"));
  private static final Pattern BLOCK =
      Pattern.compile("<!-- settings:([a-z-]+) -->\\n(.*?)<!-- /settings:\\1 -->", Pattern.DOTALL);

  @Test
  void shouldDocumentEverySettingExactlyAsTheDescriptorsDeclareIt() throws IOException {
    // Given
    boolean write = Boolean.getBoolean("prefixlog.writeSettingsTables");
    Set<ServiceSettings> documented = EnumSet.noneOf(ServiceSettings.class);

    for (Path readme : READMES) {
      String text = Files.readString(readme, StandardCharsets.UTF_8);
      StringBuilder rewritten = new StringBuilder();
      Matcher m = BLOCK.matcher(text);
      int end = 0;
      while (m.find()) {
        // When
        ServiceSettings service = ServiceSettings.named(m.group(1));
        String expected = service.definition().markdownTable();
        documented.add(service);
        rewritten.append(text, end, m.start(2)).append(expected);
        end = m.end(2);

        // Then
        if (!write) {
          assertThat(m.group(2))
              .as(
                  "the %s table of %s (rewrite with -Dprefixlog.writeSettingsTables=true)",
                  service.id(), readme)
              .isEqualTo(expected);
        }
      }
      rewritten.append(text.substring(end));
      if (write) {
        Files.writeString(readme, rewritten.toString(), StandardCharsets.UTF_8);
      }
    }
    assertThat(documented).containsExactlyInAnyOrder(ServiceSettings.values());
  }
}
