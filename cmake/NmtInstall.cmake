# `cmake --install`: the library, its public headers, the programs, the reference configurations
# and a CMake package (nmtConfig.cmake, its version file and the imported target nmt::nmt).
# Components: `runtime` (programs, libnmt.so.X.Y, configurations) and `dev` (headers, the
# libnmt.so link, the CMake package); CPack makes one Debian package of each (NmtPackage.cmake).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(NMT_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/nmt")

install(TARGETS nmt EXPORT nmtTargets
  LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT runtime NAMELINK_COMPONENT dev
  INCLUDES DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")
# Public headers: every header of the library but the internal logger (spdlog stays private), the
# drawing helpers (cairo stays private), nmt/dist's c10d internals (the store and the heartbeat)
# and the Trainer's inside.
install(DIRECTORY "${PROJECT_SOURCE_DIR}/nmt/" DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/nmt" COMPONENT dev
  FILES_MATCHING PATTERN "*.h" PATTERN "log.h" EXCLUDE PATTERN "draw.h" EXCLUDE
  PATTERN "rendezvous.h" EXCLUDE PATTERN "heartbeat.h" EXCLUDE PATTERN "trainer_impl.h" EXCLUDE
  PATTERN "serve" EXCLUDE)  # nmt-serve's library is the program's, not libnmt's (it names cpp-httplib, JSON)
install(EXPORT nmtTargets NAMESPACE nmt:: DESTINATION "${NMT_INSTALL_CMAKEDIR}" COMPONENT dev)

configure_package_config_file("${CMAKE_CURRENT_LIST_DIR}/nmtConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/nmtConfig.cmake" INSTALL_DESTINATION "${NMT_INSTALL_CMAKEDIR}")
# 0.x: a new minor version may change the API, so only the same minor version is compatible.
write_basic_package_version_file("${PROJECT_BINARY_DIR}/nmtConfigVersion.cmake"
  VERSION "${PROJECT_VERSION}" COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/nmtConfig.cmake" "${PROJECT_BINARY_DIR}/nmtConfigVersion.cmake"
  DESTINATION "${NMT_INSTALL_CMAKEDIR}" COMPONENT dev)

install(DIRECTORY "${PROJECT_SOURCE_DIR}/configs/" DESTINATION "${CMAKE_INSTALL_DATADIR}/nmt/configs"
  COMPONENT runtime FILES_MATCHING PATTERN "*.toml")
