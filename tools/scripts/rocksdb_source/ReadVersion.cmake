# Supplied by sstfilter (tools/scripts/rocksdb_source.sh copies it to
# cmake/modules/ReadVersion.cmake): the npm copy of RocksDB's source ships
# without cmake/modules/, and RocksDB's CMakeLists.txt needs this one
# function before project(). It reads the version from the header that
# defines it, so the project version always matches the code.
function(get_rocksdb_version out_var)
  file(STRINGS "${CMAKE_CURRENT_SOURCE_DIR}/include/rocksdb/version.h" _lines
       REGEX "^#define ROCKSDB_(MAJOR|MINOR|PATCH) +[0-9]+")
  foreach(part MAJOR MINOR PATCH)
    if(NOT _lines MATCHES "ROCKSDB_${part} +([0-9]+)")
      message(FATAL_ERROR "ReadVersion: no ROCKSDB_${part} in include/rocksdb/version.h")
    endif()
    set(_${part} ${CMAKE_MATCH_1})
  endforeach()
  set(${out_var} "${_MAJOR}.${_MINOR}.${_PATCH}" PARENT_SCOPE)
endfunction()
