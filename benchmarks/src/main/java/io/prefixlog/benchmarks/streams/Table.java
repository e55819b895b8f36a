package io.prefixlog.benchmarks.streams;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/** An aligned text table: the first column left-aligned, the others right-aligned. */
final class Table {
  private final List<String> header;
  private final List<List<String>> rows = new ArrayList<>();

  Table(String... header) {
    this.header = List.of(header);
  }

  Table row(Object... cells) {
    if (cells.length != header.size()) {
      throw new IllegalArgumentException(
          "row has " + cells.length + " cells, header has " + header.size());
    }
    rows.add(Arrays.stream(cells).map(String::valueOf).toList());
    return this;
  }

  Table separator() {
    rows.add(null);
    return this;
  }

  void print(PrintStream out) {
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
}
