package io.prefixlog.tools.replay;

/**
 * A replay of one of the two modes: the corpora ({@link CorpusReplayRequest}, run by {@link
 * CorpusReplayService}) or the capture ({@link CaptureReplayRequest}, run by {@link
 * CaptureReplayService}). {@code prefixlog replay} reads its command line into one of them.
 */
public sealed interface ReplayRequest permits CorpusReplayRequest, CaptureReplayRequest {}
