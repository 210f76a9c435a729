// SstFilterJavaCheck: does this RocksJava jar carry sstfilter, and do its
// filters work? Run by tools/java/run_check.sh against a rocksdbjni jar
// built with -DWITH_JNI=ON -DROCKSDB_PLUGINS=sstfilter (docs/guide/java.md).
//
//   java -cp <rocksdbjni.jar>:<classes> SstFilterJavaCheck [--keys N] [--policy ID:BITS] [--keep]
//
// In a new temporary folder it writes an OPTIONS file whose block-based
// table options say filter_policy=<policy> (default sstfilter.cuckoo:12),
// loads it as an application would (OptionsUtil.loadOptionsFromFile with
// a ConfigOptions), opens a DB, writes N keys (default 100000), flushes
// them to an SST and checks:
//   - the OPTIONS file RocksDB writes back names the policy (an id nobody
//     registered, or one with a bad value, is dropped with no error: the
//     DB would run with no filter);
//   - every key written reads back with its value;
//   - N-1 absent keys inside the key range read as absent, and the filter
//     ruled out most of them (statistics, rocksdb.bloom.filter.useful);
//   - every SST's table properties name the policy (filter_policy_name)
//     and hold a filter;
//   - reopened from the OPTIONS file RocksDB wrote (loadLatestOptions),
//     the DB passes every check again but the writes.
// Prints what it measured; exit status 0 only if every check passed.

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ConfigOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.Env;
import org.rocksdb.FlushOptions;
import org.rocksdb.OptionsUtil;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.Statistics;
import org.rocksdb.TableProperties;
import org.rocksdb.TickerType;

public final class SstFilterJavaCheck {
  private static final class CheckFailed extends Exception {
    private static final long serialVersionUID = 1L;

    CheckFailed(String message) {
      super(message);
    }
  }

  private SstFilterJavaCheck() {}

  public static void main(String[] args) {
    int keys = 100_000;
    String policy = "sstfilter.cuckoo:12";
    boolean keep = false;
    for (int i = 0; i < args.length; ++i) {
      if (args[i].equals("--keys") && i + 1 < args.length) {
        try {
          keys = Integer.parseInt(args[++i]);
        } catch (NumberFormatException e) {
          keys = 0;
        }
      } else if (args[i].equals("--policy") && i + 1 < args.length) {
        policy = args[++i];
      } else if (args[i].equals("--keep")) {
        keep = true;
      } else {
        System.err.println(
            "usage: SstFilterJavaCheck [--keys N] [--policy ID:BITS] [--keep]");
        System.exit(2);
      }
    }
    if (keys < 1000) {
      System.err.println("--keys takes a number, at least 1000");
      System.exit(2);
    }

    Path dir = null;
    int status = 0;
    try {
      dir = Files.createTempDirectory("sstfilter-java-check");
      run(dir, keys, policy);
      System.out.println("OK: this jar carries sstfilter and " + policy + " works");
    } catch (CheckFailed e) {
      System.out.println("FAIL: " + e.getMessage());
      status = 1;
    } catch (RocksDBException | IOException | RuntimeException | UnsatisfiedLinkError e) {
      System.out.println("FAIL: " + e);
      status = 1;
    } finally {
      if (dir != null) {
        if (keep) {
          System.out.println("kept " + dir);
        } else {
          removeTree(dir);
        }
      }
    }
    System.exit(status);
  }

  private static void run(Path dir, int keys, String policy)
      throws CheckFailed, RocksDBException, IOException {
    try {
      RocksDB.loadLibrary();
    } catch (RuntimeException | UnsatisfiedLinkError e) {
      throw new CheckFailed("cannot load the jar's native library (" + e.getMessage()
          + "): pass the rocksdbjni-<version>-linux64.jar that RocksDB's CMake built");
    }
    String id = policy.contains(":") ? policy.substring(0, policy.indexOf(':')) : policy;
    System.out.println("RocksDB " + RocksDB.rocksdbVersion() + ", policy " + policy);

    Path optionsFile = dir.resolve("sstfilter-options.ini");
    Files.write(optionsFile, optionsText(policy).getBytes(StandardCharsets.UTF_8));
    String dbPath = dir.resolve("db").toString();

    openAndCheck(dbPath,
        (config, dbOptions, cfDescs) -> OptionsUtil.loadOptionsFromFile(
            config, optionsFile.toString(), dbOptions, cfDescs),
        (db, stats) -> {
          checkWrittenOptions(dbPath, id);
          writeAndFlush(db, keys);
          readEveryKey(db, keys);
          readAbsentKeys(db, keys, stats);
          checkTableProperties(db, id);
        });
    // An application reopening the DB from the OPTIONS file RocksDB wrote
    // (the braced form of the policy) must get the same filters back.
    System.out.println("reopened from the DB's own OPTIONS file (OptionsUtil.loadLatestOptions)");
    openAndCheck(dbPath,
        (config, dbOptions, cfDescs) -> OptionsUtil.loadLatestOptions(
            config, dbPath, dbOptions, cfDescs),
        (db, stats) -> {
          checkWrittenOptions(dbPath, id);
          readEveryKey(db, keys);
          readAbsentKeys(db, keys, stats);
          checkTableProperties(db, id);
        });
  }

  private interface OptionsLoader {
    void load(ConfigOptions config, DBOptions dbOptions, List<ColumnFamilyDescriptor> cfDescs)
        throws RocksDBException;
  }

  private interface Checks {
    void run(RocksDB db, Statistics stats) throws CheckFailed, RocksDBException, IOException;
  }

  // Loads the options as an application would (the default ConfigOptions),
  // opens the DB with statistics on, runs `checks`, closes everything.
  private static void openAndCheck(String dbPath, OptionsLoader loader, Checks checks)
      throws CheckFailed, RocksDBException, IOException {
    List<ColumnFamilyDescriptor> cfDescs = new ArrayList<>();
    List<ColumnFamilyHandle> handles = new ArrayList<>();
    try (ConfigOptions config = new ConfigOptions();
         DBOptions dbOptions = new DBOptions();
         Statistics stats = new Statistics()) {
      loader.load(config, dbOptions, cfDescs);
      dbOptions.setCreateIfMissing(true).setStatistics(stats);
      try (RocksDB db = RocksDB.open(dbOptions, dbPath, cfDescs, handles)) {
        try {
          checks.run(db, stats);
        } finally {
          for (ColumnFamilyHandle h : handles) h.close();
        }
      }
    } finally {
      for (ColumnFamilyDescriptor d : cfDescs) d.getOptions().close();
    }
  }

  // One column family, small enough to flush into one SST; the policy is
  // the only thing that names sstfilter.
  private static String optionsText(String policy) {
    return String.join("\n",
        "[Version]",
        "  rocksdb_version=" + RocksDB.rocksdbVersion(),
        "  options_file_version=1.1",
        "[DBOptions]",
        "  create_if_missing=true",
        "[CFOptions \"default\"]",
        "  write_buffer_size=67108864",
        "[TableOptions/BlockBasedTable \"default\"]",
        "  filter_policy=" + policy,
        "");
  }

  // RocksDB records what it really configured; an unregistered id shows up
  // here as filter_policy=nullptr.
  private static void checkWrittenOptions(String dbPath, String id)
      throws CheckFailed, RocksDBException, IOException {
    String name = OptionsUtil.getLatestOptionsFileName(dbPath, Env.getDefault());
    List<String> lines = Files.readAllLines(Paths.get(dbPath, name), StandardCharsets.UTF_8);
    String found = null;
    for (String line : lines) {
      String t = line.trim();
      if (t.startsWith("filter_policy=")) found = t;
    }
    System.out.println("RocksDB wrote " + name + ": " + found);
    boolean named = found != null
        && (found.contains("id=" + id + ";") || found.equals("filter_policy=" + id)
            || found.startsWith("filter_policy=" + id + ":"));
    if (!named) {
      throw new CheckFailed("the DB runs with " + found + ", not " + id
          + ": RocksDB drops, with no error, a policy id that nothing registered"
          + " (a jar built without -DROCKSDB_PLUGINS=sstfilter, a misspelt id)"
          + " or whose options it could not parse (bits/key out of range)");
    }
  }

  private static byte[] key(long i) {
    return String.format("key%012d", i).getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] value(long i) {
    return ("value" + i).getBytes(StandardCharsets.UTF_8);
  }

  // Keys 0, 2, 4, ...: the odd numbers between them are absent but inside
  // the SST's key range, so lookups of them reach the filter.
  private static void writeAndFlush(RocksDB db, int keys) throws RocksDBException {
    for (long i = 0; i < keys; ++i) db.put(key(2 * i), value(2 * i));
    try (FlushOptions flush = new FlushOptions().setWaitForFlush(true)) {
      db.flush(flush);
    }
  }

  private static void readEveryKey(RocksDB db, int keys) throws CheckFailed, RocksDBException {
    long missing = 0;
    String first = null;
    for (long i = 0; i < keys; ++i) {
      byte[] got = db.get(key(2 * i));
      if (got == null || !Arrays.equals(got, value(2 * i))) {
        if (first == null) first = new String(key(2 * i), StandardCharsets.UTF_8);
        ++missing;
      }
    }
    System.out.println("present keys: " + keys + " read, " + missing + " missing or wrong");
    if (missing != 0) {
      throw new CheckFailed(missing + " written keys not read back, the first " + first);
    }
  }

  private static void readAbsentKeys(RocksDB db, int keys, Statistics stats)
      throws CheckFailed, RocksDBException {
    stats.reset();
    long absent = keys - 1;
    for (long i = 0; i < absent; ++i) {
      if (db.get(key(2 * i + 1)) != null) {
        throw new CheckFailed("absent key " + (2 * i + 1) + " was found");
      }
    }
    long useful = stats.getTickerCount(TickerType.BLOOM_FILTER_USEFUL);
    long positive = stats.getTickerCount(TickerType.BLOOM_FILTER_FULL_POSITIVE);
    long truePositive = stats.getTickerCount(TickerType.BLOOM_FILTER_FULL_TRUE_POSITIVE);
    long falsePositive = positive - truePositive;
    System.out.printf("absent keys: %d read, %d ruled out by the filter, %d false positives"
            + " (FPR %.3f%%)%n",
        absent, useful, falsePositive, 100.0 * falsePositive / absent);
    // A working filter at any sstfilter budget rules out far more than
    // 90%; no filter at all rules out none.
    if (useful < 0.9 * absent) {
      throw new CheckFailed("the filter ruled out only " + useful + " of " + absent
          + " absent keys");
    }
  }

  private static void checkTableProperties(RocksDB db, String id)
      throws CheckFailed, RocksDBException {
    Map<String, TableProperties> tables = db.getPropertiesOfAllTables();
    if (tables.isEmpty()) throw new CheckFailed("no SST after the flush");
    for (Map.Entry<String, TableProperties> e : tables.entrySet()) {
      TableProperties p = e.getValue();
      String file = Paths.get(e.getKey()).getFileName().toString();
      System.out.printf("%s: filter_policy_name=%s, %d entries, filter %d bytes (%.2f bits/key)%n",
          file, p.getFilterPolicyName(), p.getNumEntries(), p.getFilterSize(),
          8.0 * p.getFilterSize() / Math.max(1, p.getNumEntries()));
      if (!id.equals(p.getFilterPolicyName())) {
        throw new CheckFailed(file + " names filter policy '" + p.getFilterPolicyName()
            + "', not " + id);
      }
      if (p.getFilterSize() == 0) throw new CheckFailed(file + " has no filter");
    }
  }

  private static void removeTree(Path dir) {
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      System.err.println("could not remove " + dir + ": " + e);
    }
  }
}
