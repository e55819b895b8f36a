package io.prefixlog.systemtests.pipeline;

import io.prefixlog.core.service.ServiceMain;
import io.prefixlog.streams.StreamApp;
import io.prefixlog.streams.StreamAppConfig;
import io.prefixlog.streams.StreamAppMetrics;
import io.prefixlog.streams.topology.PrefixlogTopology;
import java.util.List;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.Record;

/**
 * The stream app with one processor more than {@link PrefixlogTopology} builds: an instance whose
 * topology differs from the group's, as a build with a node added would be. The main of a child JVM
 * (public: the watchdog calls it by reflection).
 */
public final class ExtraNodeStreamApp {
  /** The added node: a child of session-delta that nothing is forwarded to. */
  static final String EXTRA_NODE = "extra-node";

  private ExtraNodeStreamApp() {}

  public static void main(String[] args) {
    System.exit(
        ServiceMain.run(
            ExtraNodeStreamApp.class.getName(),
            "stream-app",
            args,
            System.getenv(),
            List.of(StreamAppConfig.DEFINITION),
            settings ->
                new StreamApp(
                    StreamAppConfig.fromSettings(settings), ExtraNodeStreamApp::topology)));
  }

  /** {@link PrefixlogTopology#build} with {@link #EXTRA_NODE} under session-delta. */
  static Topology topology(StreamAppConfig config, StreamAppMetrics metrics) {
    Topology topology = PrefixlogTopology.build(config, metrics);
    // session-delta forwards to its children by name, so this one never receives a record.
    topology.addProcessor(EXTRA_NODE, Ignore::new, PrefixlogTopology.SESSION_DELTA_PROCESSOR);
    return topology;
  }

  private static final class Ignore implements Processor<Object, Object, Void, Void> {
    @Override
    public void process(Record<Object, Object> record) {
      throw new IllegalStateException("session-delta forwarded to " + EXTRA_NODE);
    }
  }
}
