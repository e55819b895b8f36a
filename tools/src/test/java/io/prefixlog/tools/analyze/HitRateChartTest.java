package io.prefixlog.tools.analyze;

import static org.assertj.core.api.Assertions.assertThat;

import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HitRateChartTest {
  @TempDir Path dir;

  @Test
  void shouldHoldEveryLineReferenceAndMarkAndWriteAPngOfTheChartSize() throws Exception {
    // Given
    HitRateChart chart =
        HitRateChart.overCapacity(
                "LRU hit rate vs cache capacity: test",
                "3 requests",
                "cache capacity in chunks (log scale)",
                "hit rate (% of bytes)",
                1,
                1000)
            .line(
                "prefix",
                HitRateChart.PALETTE[0],
                HitRateChart.Style.SOLID,
                new double[] {1, 10, 100, 1000},
                new double[] {0, 0.2, Double.NaN, 0.7})
            .horizontal("engine actual", HitRateChart.ENGINE, 0.5)
            .vertical("working set", HitRateChart.PALETTE[2], 300)
            .mark("90% of max: 80 chunks", HitRateChart.PALETTE[0], 80, 0.63)
            .note("A note under the plot.");

    // When
    Path png = dir.resolve("curve.png");
    chart.write(png);

    // Then: the legend's series first, the mark as a series of its own kept out of the legend
    assertThat(chart.seriesNames())
        .containsExactly("prefix", "engine actual", "working set", "mark 0");
    BufferedImage image = ImageIO.read(png.toFile());
    assertThat(image.getWidth()).isEqualTo(HitRateChart.WIDTH);
    assertThat(image.getHeight()).isEqualTo(HitRateChart.HEIGHT);
    assertThat(Files.size(png)).isGreaterThan(10_000);
  }

  @Test
  void shouldDrawATimeAxisChart() throws Exception {
    long start = 1_763_700_000_000L;
    HitRateChart chart =
        HitRateChart.overTime(
                "Rolling", "windows", "time (UTC)", "hit rate", start, start + 600_000)
            .line(
                "per window",
                HitRateChart.PALETTE[1],
                HitRateChart.Style.DOTTED,
                new double[] {start, start + 300_000, start + 600_000},
                new double[] {0.1, Double.NaN, 0.4});

    BufferedImage image = chart.render();

    assertThat(image.getWidth()).isEqualTo(HitRateChart.WIDTH);
    assertThat(chart.seriesNames()).containsExactly("per window");
  }
}
