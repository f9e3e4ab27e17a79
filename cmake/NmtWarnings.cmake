# Warnings for the project's own targets (third-party code is compiled without them).
function(nmt_enable_warnings target)
  if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow=local
                                             -Wnon-virtual-dtor -Wcast-align)
  endif()
endfunction()
