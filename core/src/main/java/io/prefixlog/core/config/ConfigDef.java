package io.prefixlog.core.config;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The descriptor table of one service's settings, in the spirit of Kafka's {@code ConfigDef}: every
 * {@link ConfigKey} once, in the order the docs list them. {@link #parse} reads and checks them
 * all; {@link #markdownTable} is the README's table and {@link #helpText} the {@code --help} text,
 * so neither can drift from what the code reads ({@code SettingsTablesTest} fails when a README
 * differs).
 *
 * <p>Not Kafka's own {@code ConfigDef}, although every module has it on the class path: its values
 * come back as {@code Object} and need a cast at every read, it has no duration or size type with
 * units ({@code 30s}, {@code 16MiB}, which the settings have always taken), its range errors do not
 * say the expected form, and it renders RST and HTML rather than Markdown. The typed keys here cost
 * about as many lines as the adapters those gaps would need.
 */
public final class ConfigDef {
  /** A row of the docs that is not a single key: a family of pass-through settings. */
  public record Note(String name, String documentedDefault, String accepted, String doc) {
    public Note {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(documentedDefault, "documentedDefault");
      Objects.requireNonNull(accepted, "accepted");
      Objects.requireNonNull(doc, "doc");
    }
  }

  private final String service;
  private final List<ConfigKey<?>> keys;
  private final List<Note> notes;

  private ConfigDef(String service, List<ConfigKey<?>> keys, List<Note> notes) {
    this.service = service;
    this.keys = List.copyOf(keys);
    this.notes = List.copyOf(notes);
    Set<String> names = new HashSet<>();
    for (ConfigKey<?> key : keys) {
      if (!names.add(key.name())) {
        throw new IllegalArgumentException(service + " declares " + key.name() + " twice");
      }
      if (key.doc().isBlank()) {
        throw new IllegalArgumentException(service + ": " + key.name() + " has no documentation");
      }
    }
  }

  /** The settings of {@code service} (a name such as {@code capture proxy}). */
  public static ConfigDef of(String service, List<ConfigKey<?>> keys) {
    return new ConfigDef(Objects.requireNonNull(service, "service"), keys, List.of());
  }

  /** This table with a documentation-only row after the keys. */
  public ConfigDef withNote(Note note) {
    List<Note> more = new ArrayList<>(notes);
    more.add(Objects.requireNonNull(note, "note"));
    return new ConfigDef(service, keys, more);
  }

  public String service() {
    return service;
  }

  public List<ConfigKey<?>> keys() {
    return keys;
  }

  /**
   * The key named {@code name}.
   *
   * @throws IllegalArgumentException when this table has none
   */
  public ConfigKey<?> key(String name) {
    for (ConfigKey<?> key : keys) {
      if (key.name().equals(name)) {
        return key;
      }
    }
    throw new IllegalArgumentException(name + " is not a setting of " + service);
  }

  public List<Note> notes() {
    return notes;
  }

  /**
   * Every key's value from {@code settings}.
   *
   * @throws ConfigException naming the first key that is malformed, out of range or missing
   */
  public ConfigValues parse(Settings settings) {
    Objects.requireNonNull(settings, "settings");
    Map<String, Object> values = new LinkedHashMap<>();
    for (ConfigKey<?> key : keys) {
      values.put(key.name(), key.read(settings));
    }
    return new ConfigValues(this, values);
  }

  /** The README table: one row per key and note, in declaration order. */
  public String markdownTable() {
    StringBuilder out = new StringBuilder();
    out.append("| setting | default | values | meaning |\n");
    out.append("|---|---|---|---|\n");
    for (ConfigKey<?> key : keys) {
      row(out, key.name(), key.documentedDefault(), key.type().describe(), key.doc());
    }
    for (Note note : notes) {
      row(out, note.name(), note.documentedDefault(), note.accepted(), note.doc());
    }
    return out.toString();
  }

  /** The {@code --help} text: each setting, its values and default, then what it does, wrapped. */
  public String helpText() {
    StringBuilder out = new StringBuilder();
    out.append("Settings of the ").append(service).append(" (environment variables):\n");
    for (ConfigKey<?> key : keys) {
      entry(out, key.name(), key.type().describe(), key.documentedDefault(), key.doc());
    }
    for (Note note : notes) {
      entry(out, note.name(), note.accepted(), note.documentedDefault(), note.doc());
    }
    return out.toString();
  }

  private static void row(
      StringBuilder out, String name, String documentedDefault, String accepted, String doc) {
    out.append("| `")
        .append(name)
        .append("` | ")
        .append(cell(documentedDefault))
        .append(" | ")
        .append(cell(accepted))
        .append(" | ")
        .append(cell(doc))
        .append(" |\n");
  }

  private static String cell(String text) {
    return text.isEmpty() ? " " : text.replace("|", "\\|").replace("\n", " ");
  }

  private static void entry(
      StringBuilder out, String name, String accepted, String documentedDefault, String doc) {
    out.append("  ")
        .append(name)
        .append("  (")
        .append(plain(accepted))
        .append("; default ")
        .append(plain(documentedDefault))
        .append(")\n");
    wrap(out, plain(doc), "      ", 100);
  }

  /** Markdown to terminal text: code spans lose their backticks. */
  private static String plain(String markdown) {
    return markdown.replace("`", "");
  }

  private static void wrap(StringBuilder out, String text, String indent, int width) {
    StringBuilder line = new StringBuilder(indent);
    for (String word : text.split("\\s+")) {
      if (word.isEmpty()) {
        continue;
      }
      if (line.length() > indent.length() && line.length() + 1 + word.length() > width) {
        out.append(line).append('\n');
        line = new StringBuilder(indent);
      }
      if (line.length() > indent.length()) {
        line.append(' ');
      }
      line.append(word);
    }
    if (line.length() > indent.length()) {
      out.append(line).append('\n');
    }
  }
}
