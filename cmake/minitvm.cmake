# Helpers shared by the stage CMakeLists.

# minitvm_add_stage_library(<name> SOURCES ... DEPENDS ...)
# A shared library (global registrations run when it loads) with include/ as its public
# headers.
function(minitvm_add_stage_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPENDS" ${ARGN})
  add_library(${name} SHARED ${ARG_SOURCES})
  target_include_directories(${name} PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/include)
  target_link_libraries(${name} PUBLIC ${ARG_DEPENDS})
  set_target_properties(${name} PROPERTIES CXX_VISIBILITY_PRESET default)
endfunction()

# minitvm_add_gtest(<name> LABELS ... SOURCES ... LIBS ...)
function(minitvm_add_gtest name)
  cmake_parse_arguments(ARG "" "" "LABELS;SOURCES;LIBS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_LIBS} GTest::gtest_main)
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/tests/common)
  gtest_discover_tests(${name} PROPERTIES LABELS "${ARG_LABELS}"
                       ENVIRONMENT "MINITVM_SOURCE_DIR=${PROJECT_SOURCE_DIR}"
                       DISCOVERY_TIMEOUT 60)
endfunction()
