package io.prefixlog.benchmarks.proxy;

import io.prefixlog.benchmarks.report.TextTable;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The capture proxy's targets, each capture proxy's figure next to nginx's from the same rounds,
 * and whether it is met: added p99 ≤ 1 ms in the first minute after a start (cold) and ≤ 0.5 ms
 * once warm, added p50 ≤ 0.3 ms in both regimes, CPU per request ≤ 2× nginx's in both, and nothing
 * dropped from capture. A regime that was not run is left out rather than counted as met.
 */
final class ProxyTargets {
  static final double COLD_P99_MS = 1.0;
  static final double WARM_P99_MS = 0.5;
  static final double P50_MS = 0.3;
  static final double CPU_RATIO = 2.0;

  /** One goal of one target in one regime. */
  record Verdict(
      String target, String goal, String figure, String nginx, boolean met, boolean known) {}

  private final List<Verdict> verdicts;

  private ProxyTargets(List<Verdict> verdicts) {
    this.verdicts = List.copyOf(verdicts);
  }

  /**
   * @param cold the cold-start summaries per target, or null when not run
   * @param warm the warm summaries per target, or null when not run
   */
  static ProxyTargets of(Map<String, ColdStart.Summary> cold, Map<String, ColdStart.Summary> warm) {
    Set<String> proxies = new LinkedHashSet<>();
    for (Map<String, ColdStart.Summary> regime : Arrays.asList(cold, warm)) {
      if (regime != null) {
        regime.keySet().stream().filter(t -> t.startsWith("prefixlog")).forEach(proxies::add);
      }
    }
    List<Verdict> verdicts = new ArrayList<>();
    for (String proxy : proxies) {
      regime(verdicts, proxy, "first minute", cold, COLD_P99_MS);
      regime(verdicts, proxy, "warm", warm, WARM_P99_MS);
    }
    return new ProxyTargets(verdicts);
  }

  private static void regime(
      List<Verdict> verdicts,
      String proxy,
      String regime,
      Map<String, ColdStart.Summary> summaries,
      double p99Goal) {
    ColdStart.Summary s = summaries == null ? null : summaries.get(proxy);
    if (s == null) {
      return;
    }
    ColdStart.Summary nginx = summaries.get("nginx");
    verdicts.add(
        new Verdict(
            proxy,
            f("%s: added p99 ≤ %.1f ms", regime, p99Goal),
            f("%+.2f ms", s.addedP99()),
            nginx == null ? "-" : f("%+.2f ms", nginx.addedP99()),
            s.addedP99() <= p99Goal,
            !Double.isNaN(s.addedP99())));
    verdicts.add(
        new Verdict(
            proxy,
            f("%s: added p50 ≤ %.1f ms", regime, P50_MS),
            f("%+.2f ms", s.addedP50()),
            nginx == null ? "-" : f("%+.2f ms", nginx.addedP50()),
            s.addedP50() <= P50_MS,
            !Double.isNaN(s.addedP50())));
    double ratio =
        nginx == null ? Double.NaN : s.cpuMicrosPerRequest() / nginx.cpuMicrosPerRequest();
    verdicts.add(
        new Verdict(
            proxy,
            f("%s: CPU per request ≤ %.0f× nginx's", regime, CPU_RATIO),
            f("%.0f µs (%.1f×)", s.cpuMicrosPerRequest(), ratio),
            nginx == null ? "-" : f("%.0f µs", nginx.cpuMicrosPerRequest()),
            ratio <= CPU_RATIO,
            !Double.isNaN(ratio)));
    verdicts.add(
        new Verdict(
            proxy,
            regime + ": nothing dropped from capture",
            s.dropped() < 0 ? "-" : s.dropped() + " dropped",
            "-",
            s.dropped() == 0,
            s.dropped() >= 0));
  }

  List<Verdict> verdicts() {
    return verdicts;
  }

  void print(PrintStream out) {
    if (verdicts.isEmpty()) {
      return;
    }
    TextTable table = new TextTable("proxy", "target", "figure", "nginx", "verdict");
    for (Verdict v : verdicts) {
      table.row(
          v.target(),
          v.goal(),
          v.figure(),
          v.nginx(),
          !v.known() ? "not measured" : v.met() ? "met" : "NOT MET");
    }
    out.println();
    out.println("The proxy's targets, medians over rounds, nginx from the same rounds:");
    table.print(out);
  }

  private static String f(String format, Object... args) {
    return String.format(Locale.ROOT, format, args);
  }
}
