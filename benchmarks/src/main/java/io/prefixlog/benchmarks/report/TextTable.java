package io.prefixlog.benchmarks.report;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * An aligned text table: the first column left-aligned, the others right-aligned; a row of null
 * cells is a separator. Also writes itself as CSV.
 */
public final class TextTable {
  private final List<String> header;
  private final List<List<String>> rows = new ArrayList<>();

  public TextTable(String... header) {
    this.header = List.of(header);
  }

  public TextTable row(Object... cells) {
    if (cells.length != header.size()) {
      throw new IllegalArgumentException(
          "row has " + cells.length + " cells, header has " + header.size());
    }
    rows.add(Arrays.stream(cells).map(String::valueOf).toList());
    return this;
  }

  public TextTable separator() {
    rows.add(null);
    return this;
  }

  public void print(PrintStream out) {
    int[] width = new int[header.size()];
    for (int c = 0; c < width.length; c++) {
      width[c] = header.get(c).length();
      for (List<String> row : rows) {
        if (row != null) {
          width[c] = Math.max(width[c], row.get(c).length());
        }
      }
    }
    out.println(line(header, width));
    String rule = Arrays.stream(width).mapToObj("-"::repeat).collect(Collectors.joining("-+-"));
    out.println(rule);
    for (List<String> row : rows) {
      out.println(row == null ? rule : line(row, width));
    }
  }

  private static String line(List<String> cells, int[] width) {
    StringBuilder line = new StringBuilder();
    for (int c = 0; c < cells.size(); c++) {
      if (c > 0) {
        line.append(" | ");
      }
      String cell = cells.get(c);
      String pad = " ".repeat(width[c] - cell.length());
      line.append(c == 0 ? cell + pad : pad + cell);
    }
    return line.toString().stripTrailing();
  }

  /** Header and rows as CSV lines, each prefixed with {@code table} as its first column. */
  public List<String> csv(String table) {
    List<String> lines = new ArrayList<>();
    lines.add(csvLine(table, header));
    for (List<String> row : rows) {
      if (row != null) {
        lines.add(csvLine(table, row));
      }
    }
    return lines;
  }

  private static String csvLine(String table, List<String> cells) {
    List<String> all = new ArrayList<>();
    all.add(table);
    all.addAll(cells);
    return all.stream().map(TextTable::csvCell).collect(Collectors.joining(","));
  }

  private static String csvCell(String cell) {
    String plain = cell.strip();
    if (plain.contains(",") || plain.contains("\"") || plain.contains("\n")) {
      return "\"" + plain.replace("\"", "\"\"") + "\"";
    }
    return plain;
  }

  /** Writes {@code tables} as one CSV file (each row led by its table's name) and says where. */
  public static void writeCsv(Path file, Map<String, TextTable> tables, PrintStream out) {
    List<String> lines = new ArrayList<>();
    tables.forEach((name, table) -> lines.addAll(table.csv(name)));
    try {
      Files.write(file, lines, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
    out.println("CSV written to " + file);
  }
}
