// Loads "sstfilter.cuckoo:12" the way an OPTIONS file does and prints
// whether the policy came back. With CALL_REGISTER the program references
// libsstfilter (the documented fix); without it, it references nothing of
// sstfilter's, so a --as-needed link drops the library and its registration.

#include <cstdio>
#include <memory>

#include <rocksdb/convenience.h>
#include <rocksdb/filter_policy.h>
#ifdef CALL_REGISTER
#include <sstfilter/sstfilter.h>
#endif

int main() {
#ifdef CALL_REGISTER
  rocksdb::RegisterSstFilter(*rocksdb::ObjectLibrary::Default(), "");
#endif
  rocksdb::ConfigOptions config;  // ignore_unsupported_options: true, as for OPTIONS files
  std::shared_ptr<const rocksdb::FilterPolicy> policy;
  const rocksdb::Status s =
      rocksdb::FilterPolicy::CreateFromString(config, "sstfilter.cuckoo:12", &policy);
  if (s.ok() && policy != nullptr) {
    std::printf("registered: %s\n", policy->Name());
    return 0;
  }
  std::printf("not registered: %s\n", s.ok() ? "OK with a null policy" : s.ToString().c_str());
  return 1;
}
