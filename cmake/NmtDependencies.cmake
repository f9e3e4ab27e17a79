# Find every dependency, failing configure with the Debian package to install when one is missing.
# scripts/setup.sh installs all of them.

macro(nmt_require_package name debian_package)
  find_package(${name} ${ARGN} QUIET)
  if(NOT ${name}_FOUND)
    message(FATAL_ERROR
      "${name} not found: install the Debian package '${debian_package}' "
      "(scripts/setup.sh installs every dependency), or point CMAKE_PREFIX_PATH at it.")
  endif()
endmacro()

nmt_require_package(Threads libc6-dev)
nmt_require_package(Torch libtorch-dev)
nmt_require_package(Protobuf "libprotobuf-dev protobuf-compiler")
nmt_require_package(CLI11 libcli11-dev CONFIG)
nmt_require_package(spdlog libspdlog-dev)
nmt_require_package(nlohmann_json nlohmann-json3-dev)
nmt_require_package(ZLIB zlib1g-dev)
# Cairo draws the pictures (nmt/plot): SVG, PNG and PDF from one code path.
nmt_require_package(PkgConfig pkg-config)
pkg_check_modules(Cairo QUIET IMPORTED_TARGET cairo)
if(NOT Cairo_FOUND)
  message(FATAL_ERROR "cairo not found: install the Debian package 'libcairo2-dev' (scripts/setup.sh does).")
endif()
# GLib's Unicode normalisation (NFC) for nmt-corpus prepare; cairo's development package brings it.
pkg_check_modules(GLib QUIET IMPORTED_TARGET glib-2.0)
if(NOT GLib_FOUND)
  message(FATAL_ERROR "glib-2.0 not found: install the Debian package 'libglib2.0-dev' (scripts/setup.sh does).")
endif()
# nmt-serve's HTTP server and client (the tests use the client).
if(NMT_BUILD_SERVER)
  pkg_check_modules(CppHttplib QUIET IMPORTED_TARGET cpp-httplib)
  if(NOT CppHttplib_FOUND)
    message(FATAL_ERROR "cpp-httplib not found: install the Debian package 'libcpp-httplib-dev' (scripts/setup.sh "
                        "does), or configure with -DNMT_BUILD_SERVER=OFF to build without nmt-serve.")
  endif()
endif()
if(NMT_BUILD_TESTS)
  nmt_require_package(GTest libgtest-dev)
endif()
if(NOT Protobuf_PROTOC_EXECUTABLE)
  message(FATAL_ERROR "protoc not found: install the Debian package 'protobuf-compiler'.")
endif()

# protobuf as FindProtobuf found it, by path. Not protobuf::libprotobuf: PyTorch's wheels define a
# target of that name for the protobuf built into libtorch (nothing to link), FindProtobuf then
# keeps theirs, and SentencePiece would link no protobuf at all.
add_library(nmt_protobuf INTERFACE)
target_link_libraries(nmt_protobuf INTERFACE ${Protobuf_LIBRARIES})
target_include_directories(nmt_protobuf SYSTEM INTERFACE ${Protobuf_INCLUDE_DIRS})

# LibTorch as one target with its compile flags (Debian's config puts the ABI flag in a variable).
add_library(nmt_torch INTERFACE)
# PyTorch's wheels bundle their own fmt and protobuf headers in torch/include; spdlog and the
# protoc-generated SentencePiece code need the ones found here, so those directories come first
# wherever LibTorch's do (CMake drops implicit ones such as /usr/include).
foreach(_nmt_dep spdlog::spdlog fmt::fmt nmt_protobuf)
  if(TARGET ${_nmt_dep})
    get_target_property(_nmt_dirs ${_nmt_dep} INTERFACE_INCLUDE_DIRECTORIES)
    if(_nmt_dirs)
      target_include_directories(nmt_torch SYSTEM BEFORE INTERFACE ${_nmt_dirs})
    endif()
  endif()
endforeach()
# That cannot work for headers in a default directory (/usr/include): the compiler searches those
# after every -isystem. Say so rather than fail later on fmt or protobuf errors.
if(TORCH_INSTALL_PREFIX AND EXISTS "${TORCH_INSTALL_PREFIX}/include/fmt/format.h"
   AND NOT "${TORCH_INSTALL_PREFIX}/include" IN_LIST CMAKE_CXX_IMPLICIT_INCLUDE_DIRECTORIES)
  get_target_property(_nmt_spdlog_dirs spdlog::spdlog INTERFACE_INCLUDE_DIRECTORIES)
  foreach(_nmt_dir ${_nmt_spdlog_dirs} ${Protobuf_INCLUDE_DIRS})
    if(_nmt_dir IN_LIST CMAKE_CXX_IMPLICIT_INCLUDE_DIRECTORIES)
      message(WARNING "This LibTorch (${TORCH_INSTALL_PREFIX}) bundles fmt and protobuf headers, which shadow "
                      "the ones in ${_nmt_dir} that spdlog and SentencePiece were built with. If the build fails "
                      "in spdlog or sentencepiece_model.pb.h, install those libraries under another prefix and "
                      "add it to CMAKE_PREFIX_PATH (scripts/check-cuda.sh shows how).")
      break()
    endif()
  endforeach()
endif()
# PyTorch's wheels (2.5 on) export libstdc++ functions that they link statically, std::filesystem's
# among them (pytorch/pytorch#133437). A program that needs libtorch before libstdc++ binds those
# names to libtorch's copies, and std::filesystem then crashed in every test that makes a temporary
# folder (PyTorch 2.11, g++ 13; docs/benchmarks.md, "On a GPU"). libstdc++ named ahead of LibTorch
# comes first in each program's needed libraries, hence first in the dynamic linker's search
# order. Where LibTorch was built against the system's libstdc++ (Debian) nothing changes.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" OR
   (CMAKE_CXX_COMPILER_ID MATCHES "Clang" AND NOT APPLE AND NOT CMAKE_CXX_FLAGS MATCHES "-stdlib=libc\\+\\+"))
  set(_nmt_libstdcxx_first stdc++)
endif()
target_link_libraries(nmt_torch INTERFACE ${_nmt_libstdcxx_first} ${TORCH_LIBRARIES})
separate_arguments(_nmt_torch_flags UNIX_COMMAND "${TORCH_CXX_FLAGS}")
target_compile_options(nmt_torch INTERFACE ${_nmt_torch_flags})
add_library(nmt::torch ALIAS nmt_torch)
