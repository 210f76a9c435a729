#include "rocksdb_adapter/level_listener.h"

#include <rocksdb/db.h>
#include <rocksdb/metadata.h>
#include <rocksdb/options.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

namespace sstfilter {
namespace {

using Key = std::pair<const void*, std::string>;

struct Board {
  std::mutex mu;
  std::map<Key, std::shared_ptr<const TreeShape>> trees;
};

Board& TheBoard() {
  static Board* board = new Board;  // never destroyed: listeners may outlive statics
  return *board;
}

// Keys per run: each file's entry count where RocksDB has read it (files
// built since the DB opened, and those whose properties it loaded), else
// its size at the bytes per key of its level's counted files (levels may
// differ: compression per level), else of the whole tree's.
// Each level above the bottom gets its target size from `options`' level
// sizing (TreeShape::level_target_keys).
std::shared_ptr<const TreeShape> ShapeOf(const rocksdb::ColumnFamilyMetaData& meta,
                                         const rocksdb::Options& options) {
  double all_bytes = 0, all_keys = 0;
  std::vector<std::pair<double, double>> counted(meta.levels.size());  // bytes, keys
  for (size_t i = 0; i < meta.levels.size(); ++i) {
    for (const auto& f : meta.levels[i].files) {
      if (f.num_entries == 0) continue;
      counted[i].first += static_cast<double>(f.size);
      counted[i].second += static_cast<double>(f.num_entries);
    }
    all_bytes += counted[i].first;
    all_keys += counted[i].second;
  }
  auto tree = std::make_shared<TreeShape>();
  std::vector<double> level_bytes, bytes_per_key;
  for (size_t i = 0; i < meta.levels.size(); ++i) {
    const auto lv = static_cast<size_t>(meta.levels[i].level);
    const double per_key = counted[i].second > 0 ? counted[i].first / counted[i].second
                           : all_keys > 0        ? all_bytes / all_keys
                                                 : 0;
    if (tree->level_keys.size() <= lv) {
      tree->level_keys.resize(lv + 1, 0);
      tree->level_files.resize(lv + 1, 0);
      tree->level_target_keys.resize(lv + 1, 0);
      tree->level_ranges.resize(lv + 1);
      level_bytes.resize(lv + 1, 0);
      bytes_per_key.resize(lv + 1, 0);
    }
    bytes_per_key[lv] = per_key;
    for (const auto& f : meta.levels[i].files) level_bytes[lv] += static_cast<double>(f.size);
    for (const auto& f : meta.levels[i].files) {
      if (tree->largest_key.empty() || f.smallestkey < tree->smallest_key) {
        tree->smallest_key = f.smallestkey;
      }
      if (tree->largest_key.empty() || f.largestkey > tree->largest_key) {
        tree->largest_key = f.largestkey;
      }
      double keys = static_cast<double>(f.num_entries);
      if (keys == 0 && per_key > 0) keys = static_cast<double>(f.size) / per_key;
      tree->level_ranges[lv].push_back(FileRange{f.smallestkey, f.largestkey, keys});
      if (lv == 0) {
        tree->l0_file_keys.push_back(keys);
      } else {
        tree->level_keys[lv] += keys;
        tree->level_files[lv] += 1;
      }
    }
  }
  for (size_t lv = 1; lv < tree->level_ranges.size(); ++lv) {
    std::sort(tree->level_ranges[lv].begin(), tree->level_ranges[lv].end(),
              [](const FileRange& a, const FileRange& b) { return a.smallest < b.smallest; });
  }
  // Targets as leveled compaction sets them: static, base * multiplier^(L-1);
  // dynamic, the bottom level's size over multiplier^(levels below), never
  // under the base (what the base level may hold).
  size_t bottom = 0;
  for (size_t lv = 1; lv < level_bytes.size(); ++lv) {
    if (level_bytes[lv] > 0) bottom = lv;
  }
  const double multiplier = options.max_bytes_for_level_multiplier;
  const auto base = static_cast<double>(options.max_bytes_for_level_base);
  if (multiplier > 1 && base > 0) {
    for (size_t lv = 1; lv < bottom; ++lv) {
      const double target =
          options.level_compaction_dynamic_level_bytes
              ? std::max(base, level_bytes[bottom] / std::pow(multiplier, static_cast<double>(bottom - lv)))
              : base * std::pow(multiplier, static_cast<double>(lv - 1));
      if (bytes_per_key[lv] > 0) tree->level_target_keys[lv] = target / bytes_per_key[lv];
    }
  }
  return tree;
}

}  // namespace

LevelListener::~LevelListener() {
  Board& board = TheBoard();
  std::lock_guard<std::mutex> lock(board.mu);
  for (const Key& key : posted_) board.trees.erase(key);
}

void LevelListener::Post(rocksdb::DB* db) {
  const void* log = db->GetDBOptions().info_log.get();
  std::vector<rocksdb::ColumnFamilyMetaData> all;
  db->GetAllColumnFamilyMetaData(&all);
  // The level sizing of the default column family's options, for every
  // column family: listeners are not given the others' handles.
  const rocksdb::Options options = db->GetOptions();
  std::vector<std::pair<Key, std::shared_ptr<const TreeShape>>> trees;
  for (const auto& meta : all) {
    trees.emplace_back(Key{log, meta.name}, ShapeOf(meta, options));
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& t : trees) posted_.insert(t.first);
  }
  Board& board = TheBoard();
  std::lock_guard<std::mutex> lock(board.mu);
  for (auto& t : trees) board.trees[t.first] = std::move(t.second);
}

void LevelListener::OnFlushBegin(rocksdb::DB* db, const rocksdb::FlushJobInfo&) {
  Post(db);
}

void LevelListener::OnFlushCompleted(rocksdb::DB* db, const rocksdb::FlushJobInfo&) {
  Post(db);
}

void LevelListener::OnCompactionBegin(rocksdb::DB* db, const rocksdb::CompactionJobInfo&) {
  Post(db);
}

void LevelListener::OnCompactionCompleted(rocksdb::DB* db,
                                          const rocksdb::CompactionJobInfo&) {
  Post(db);
}

std::shared_ptr<const TreeShape> FindPostedTree(const void* info_log, const std::string& cf_name) {
  Board& board = TheBoard();
  std::lock_guard<std::mutex> lock(board.mu);
  const auto it = board.trees.find({info_log, cf_name});
  return it == board.trees.end() ? nullptr : it->second;
}

}  // namespace sstfilter
