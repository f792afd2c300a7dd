package arbor.conf;

import java.io.Serializable;

/**
 * @param maxFileMb files larger than this become ingest errors without being read
 * @param minTextChars a PDF whose text layer holds fewer characters is reported as having none
 * @param filesPerTask how many input files one Spark task parses; small values give finer
 *     progress and better balance, large ones less scheduling overhead
 * @param defaultScore the paper score when the source gives none
 */
public record IngestSettings(
    int maxFileMb,
    int minTextChars,
    int filesPerTask,
    double defaultScore,
    NoiseSettings noise) implements Serializable {}
