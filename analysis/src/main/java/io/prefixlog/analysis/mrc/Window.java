package io.prefixlog.analysis.mrc;

/**
 * One window of the rolling hit rate.
 *
 * @param index {@link Windowing.Kind#TIME}: ⌊timestamp / span⌋; {@link Windowing.Kind#REQUESTS}:
 *     ⌊request number / size⌋
 * @param startMs time windows: the window's start, {@code index × span}; request windows: the
 *     earliest timestamp in it
 * @param endMs time windows: the window's end (exclusive), {@code (index + 1) × span}; request
 *     windows: the latest timestamp in it
 * @param window the requests of this window
 * @param cumulative all requests up to the end of this window: LMCache's "rolling" rate
 */
public record Window(
    long index, long startMs, long endMs, WindowHits window, WindowHits cumulative) {}
