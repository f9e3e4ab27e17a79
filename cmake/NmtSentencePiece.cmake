# SentencePiece, built from Debian's 0.1.97 source (scripts/fetch_sentencepiece.sh) as a static
# library against the system protobuf, the same one LibTorch links: one protobuf in the process.
# Debian's libsentencepiece.so bundles protobuf-lite 3.14 and crashes any program that also links
# LibTorch (see docs/architecture.md, "SentencePiece and protobuf").

set(NMT_SENTENCEPIECE_SOURCE_DIR "${PROJECT_SOURCE_DIR}/third_party/sentencepiece"
    CACHE PATH "SentencePiece 0.1.97 source tree (fetched by scripts/fetch_sentencepiece.sh)")
if(NOT EXISTS "${NMT_SENTENCEPIECE_SOURCE_DIR}/src/sentencepiece_processor.h")
  message(FATAL_ERROR
    "SentencePiece source not found in ${NMT_SENTENCEPIECE_SOURCE_DIR}: "
    "run scripts/fetch_sentencepiece.sh (scripts/setup.sh does), "
    "or set NMT_SENTENCEPIECE_SOURCE_DIR.")
endif()

set(SPM_USE_BUILTIN_PROTOBUF OFF CACHE BOOL "" FORCE)
set(SPM_ENABLE_SHARED OFF CACHE BOOL "" FORCE)
set(SPM_ENABLE_TCMALLOC OFF CACHE BOOL "" FORCE)
set(SPM_BUILD_TEST OFF CACHE BOOL "" FORCE)
set(CMAKE_POSITION_INDEPENDENT_CODE ON)
# SentencePiece 0.1.97 asks for CMake 3.1 policies, which CMake 4 refuses without this (older CMake ignores it).
set(CMAKE_POLICY_VERSION_MINIMUM 3.5)
add_subdirectory("${NMT_SENTENCEPIECE_SOURCE_DIR}" "${CMAKE_BINARY_DIR}/third_party/sentencepiece"
                 EXCLUDE_FROM_ALL)

# Third-party code: its warnings are not ours to fix.
target_compile_options(sentencepiece-static PRIVATE -w)
target_compile_options(sentencepiece_train-static PRIVATE -w)

# Link the full libprotobuf (which LibTorch loads anyway) rather than libprotobuf-lite, so the
# process holds exactly one protobuf library.
set_target_properties(sentencepiece-static PROPERTIES
  INTERFACE_LINK_LIBRARIES "nmt_protobuf;Threads::Threads")
set_target_properties(sentencepiece_train-static PROPERTIES
  INTERFACE_LINK_LIBRARIES "sentencepiece-static;nmt_protobuf;Threads::Threads")

add_library(nmt_sentencepiece INTERFACE)
target_link_libraries(nmt_sentencepiece INTERFACE sentencepiece_train-static sentencepiece-static)
# The generated sentencepiece_model.pb.h lives in the build tree.
target_include_directories(nmt_sentencepiece SYSTEM INTERFACE "${NMT_SENTENCEPIECE_SOURCE_DIR}/src"
                           "${CMAKE_BINARY_DIR}/third_party/sentencepiece/src")
add_library(nmt::sentencepiece ALIAS nmt_sentencepiece)
