# Helpers shared by the stage CMakeLists.

include(GNUInstallDirs)

# minitvm_add_stage_library(<name> SOURCES ... DEPENDS ...)
# A shared library (global registrations run when it loads) with include/ as its public
# headers. It is also installed (see cmake/minitvm_install.cmake and docs/building.md): the
# library into lib/, every header under include/ into include/, and the target into the
# exported package as minitvm::<name without "minitvm_"> (also an alias in the build tree).
function(minitvm_add_stage_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPENDS" ${ARGN})
  add_library(${name} SHARED ${ARG_SOURCES})
  target_include_directories(${name} PUBLIC $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>
                                            $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  target_link_libraries(${name} PUBLIC ${ARG_DEPENDS})
  set_target_properties(${name} PROPERTIES CXX_VISIBILITY_PRESET default)
  minitvm_install_stage_target(${name})
  install(DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
          COMPONENT dev)
endfunction()

# minitvm_install_stage_target(<name>): install a stage library (shared or INTERFACE) and add
# it to the exported package as minitvm::<short name>. The installed libraries find each
# other through RUNPATH $ORIGIN (plus the folders of non-system libraries they link, LLVM's).
function(minitvm_install_stage_target name)
  string(REGEX REPLACE "^minitvm_" "" short ${name})
  add_library(minitvm::${short} ALIAS ${name})
  set_target_properties(${name} PROPERTIES EXPORT_NAME ${short})
  get_target_property(type ${name} TYPE)
  if(NOT type STREQUAL "INTERFACE_LIBRARY")
    set_target_properties(${name} PROPERTIES INSTALL_RPATH "$ORIGIN"
                                             INSTALL_RPATH_USE_LINK_PATH ON)
  endif()
  install(TARGETS ${name} EXPORT minitvmTargets
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev
          RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)
  set_property(GLOBAL APPEND PROPERTY MINITVM_INSTALLED_STAGE_TARGETS ${name})
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
