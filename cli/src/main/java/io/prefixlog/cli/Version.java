package io.prefixlog.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/** The project version, as Maven filtered it into the tools' resources. */
public final class Version {
  private static final String RESOURCE = "/io/prefixlog/cli/version.properties";

  private Version() {}

  public static String current() {
    try (InputStream in = Version.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        return "unknown";
      }
      Properties properties = new Properties();
      properties.load(in);
      String version = properties.getProperty("version", "unknown");
      return version.startsWith("${") ? "unknown" : version;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + RESOURCE, e);
    }
  }
}
