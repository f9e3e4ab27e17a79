# Debian packages with CPack (`cpack -G DEB` in the build folder, after the build):
#   nmt      the programs, libnmt.so.X.Y and the reference configurations (component runtime)
#   nmt-dev  headers, the libnmt.so link and the CMake package (component dev)
# Dependencies on shared libraries come from dpkg-shlibdeps (LibTorch's, protobuf's, spdlog's,
# libc's ...); OpenBLAS is recommended because LibTorch is ~50x slower with the reference BLAS.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME nmt)
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_CONTACT "nmt developers <nmt@localhost>")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL runtime dev)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_RELEASE 1)
set(CPACK_DEBIAN_PACKAGE_SECTION science)

set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME nmt)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SHLIBDEPS ON)
# A shlibs file in nmt (the only package with a shared library): a package built against libnmt
# gets "nmt (>= this version)" from dpkg-shlibdeps.
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY ">=")
set(CPACK_DEBIAN_RUNTIME_PACKAGE_RECOMMENDS "libopenblas0-pthread, fonts-dejavu-core")
# CPack puts the summary line first; these are the long descriptions under it.
set(CPACK_DEBIAN_RUNTIME_DESCRIPTION
  "nmt-train, nmt-translate, nmt-score, nmt-tokenizer and nmt-corpus-stats: a bidirectional GRU\n\
encoder, Bahdanau and Luong attention, greedy and beam search, on LibTorch; and libnmt.")
# libnmt.so.X.Y is in this package: dpkg-shlibdeps must not look for another package providing it.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS "${PROJECT_BINARY_DIR}/nmt")

set(CPACK_DEBIAN_DEV_PACKAGE_NAME nmt-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "nmt (= ${PROJECT_VERSION}-1), libtorch-dev")
set(CPACK_DEBIAN_DEV_DESCRIPTION
  "Development files of libnmt: its headers and its CMake package (find_package(nmt) gives nmt::nmt).")

include(CPack)
