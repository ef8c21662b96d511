#include <iostream>

#include "cli/cli.hpp"

int main(int argc, char** argv) { return gpuprobe::run_cli(argc, argv, std::cout, std::cerr); }
