package arbor.pipelines.ingest;

import arbor.ingest.IngestError;
import arbor.ingest.SourceFile;
import arbor.ingest.SourceKind;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;

/**
 * The driver's part of ingest: turns the paths the user named (files or folders, any Hadoop
 * URI) into the list of input files, without reading them. A file's paper id is its path
 * relative to the folder it was found under, without extension ({@code lme4/lmer}); a file named
 * directly gets its bare name. Files of unknown type inside folders are skipped and counted; a
 * path that does not exist, or a file of unknown type named directly, is an error.
 */
public final class SourceListing {

  /** The input files found, the paths that were errors, and how many files were skipped. */
  public record Result(List<SourceFile> files, List<IngestError> errors, int skipped) {}

  private static final List<String> COMPANION_EXTENSIONS = List.of(".Rnw", ".rnw", ".tex");

  public static Result list(List<String> paths, Configuration hadoop) throws IOException {
    List<SourceFile> files = new ArrayList<>();
    List<IngestError> errors = new ArrayList<>();
    int skipped = 0;
    for (String given : paths) {
      Path root = new Path(given);
      FileSystem fs = root.getFileSystem(hadoop);
      if (!fs.exists(root)) {
        errors.add(new IngestError("ingest", given, "no such file or folder"));
        continue;
      }
      FileStatus status = fs.getFileStatus(root);
      if (status.isFile()) {
        var kind = SourceKind.of(root.getName());
        if (kind.isEmpty()) {
          errors.add(new IngestError("ingest", given, "unknown file type: ingest reads .pdf (with a .tex/.Rnw beside it), "
              + ".md/.txt markdown papers, QASPER .json and .jsonl"));
          continue;
        }
        Path qualified = fs.makeQualified(root);
        files.add(new SourceFile(qualified.toString(), kind.get(), status.getLen(), stem(root.getName()),
            companion(fs, qualified, Set.of()).orElse(null)));
        continue;
      }
      Path qualifiedRoot = fs.makeQualified(root);
      List<LocatedFileStatus> found = new ArrayList<>();
      Set<String> all = new TreeSet<>();
      RemoteIterator<LocatedFileStatus> it = fs.listFiles(qualifiedRoot, true);
      while (it.hasNext()) {
        LocatedFileStatus f = it.next();
        if (f.getPath().getName().startsWith(".")) continue;
        found.add(f);
        all.add(f.getPath().toString());
      }
      found.sort((a, b) -> a.getPath().toString().compareTo(b.getPath().toString()));
      for (LocatedFileStatus f : found) {
        String name = f.getPath().getName();
        var kind = SourceKind.of(name);
        if (kind.isEmpty()) {
          if (!SourceKind.isCompanion(name)) skipped++;
          continue;
        }
        String relative = qualifiedRoot.toUri().relativize(f.getPath().toUri()).getPath();
        files.add(new SourceFile(f.getPath().toString(), kind.get(), f.getLen(), stem(relative),
            companion(fs, f.getPath(), all).orElse(null)));
      }
    }
    return new Result(files, errors, skipped);
  }

  private static java.util.Optional<String> companion(FileSystem fs, Path file, Set<String> listed) throws IOException {
    if (!file.getName().toLowerCase(Locale.ROOT).endsWith(".pdf")) return java.util.Optional.empty();
    String base = file.toString().substring(0, file.toString().length() - 4);
    for (String ext : COMPANION_EXTENSIONS) {
      String candidate = base + ext;
      if (listed.isEmpty() ? fs.exists(new Path(candidate)) : listed.contains(candidate)) {
        return java.util.Optional.of(candidate);
      }
    }
    return java.util.Optional.empty();
  }

  private static String stem(String relativePath) {
    int dot = relativePath.lastIndexOf('.');
    return dot > relativePath.lastIndexOf('/') ? relativePath.substring(0, dot) : relativePath;
  }
}
