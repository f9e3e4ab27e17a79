# Sanitizer builds (docs/sanitizers.md; scripts/sanitize.sh configures and runs one).
#
#   -DNMT_SANITIZE=address,undefined    AddressSanitizer (with LeakSanitizer) + UBSan
#   -DNMT_SANITIZE=address | undefined  one of them
#   -DNMT_SANITIZE=                     off (the default)
#
# The flags go on every target this project compiles from here on: libnmt, the programs, the
# tests, the benchmarks and the SentencePiece we build from source (cmake/NmtSentencePiece.cmake),
# because this file is included before any of them is defined and directory options reach the
# subdirectories added later. LibTorch, protobuf, OpenBLAS and the other Debian libraries are
# binaries and stay uninstrumented: ASan still sees their heap (malloc and free are intercepted
# process-wide) but not their stack or global accesses.
#
# UBSan stays recoverable (GCC's default) on purpose: its suppression file applies only to
# recoverable checks, and UBSAN_OPTIONS=halt_on_error=1 (set by scripts/sanitize.sh) makes the
# first unsuppressed report end the program anyway.
set(NMT_SANITIZE "" CACHE STRING
    "Sanitizers to build with: address, undefined or address,undefined (empty: none)")

if(NMT_SANITIZE)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    message(FATAL_ERROR "NMT_SANITIZE needs GCC or Clang (this is ${CMAKE_CXX_COMPILER_ID})")
  endif()
  string(REPLACE "," ";" _nmt_sanitizers "${NMT_SANITIZE}")
  foreach(_nmt_sanitizer IN LISTS _nmt_sanitizers)
    if(NOT _nmt_sanitizer MATCHES "^(address|undefined)$")
      message(FATAL_ERROR "NMT_SANITIZE: unknown sanitizer '${_nmt_sanitizer}' "
                          "(use address, undefined or address,undefined)")
    endif()
  endforeach()
  list(REMOVE_DUPLICATES _nmt_sanitizers)
  string(REPLACE ";" "," _nmt_sanitize_flag "${_nmt_sanitizers}")

  # Frame pointers give the reports full stacks with ASan's fast unwinder; -g gives them lines
  # (harmless where the build type already has it).
  add_compile_options("-fsanitize=${_nmt_sanitize_flag}" -fno-omit-frame-pointer -g)
  add_link_options("-fsanitize=${_nmt_sanitize_flag}")
  # GCC 12 links UBSan as a shared runtime beside ASan's, and that runtime then prints to stderr
  # whatever UBSAN_OPTIONS=log_path says: a report from a program that a test expects to fail
  # would pass unseen. Linked statically (one copy per executable and in libnmt, hidden there by
  # --exclude-libs) it honours log_path. Clang's runtimes are static already.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND "address" IN_LIST _nmt_sanitizers
     AND "undefined" IN_LIST _nmt_sanitizers)
    add_link_options(-static-libubsan)
  endif()
  message(STATUS "Sanitizers: ${_nmt_sanitize_flag} (LibTorch and other system libraries uninstrumented)")
endif()
